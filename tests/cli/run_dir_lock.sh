#!/usr/bin/env bash
# A run folder belongs to one run at a time: a second run on the same
# --run-dir fails at once naming the folder and the pid holding it; a fresh
# run refuses a folder holding another run's results unless --overwrite; a
# run that replaces --checkpoint written by another run says what it held;
# --resume works as before.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
args=(--data data --device cpu --threads 1 --batch-size 8 --train-limit 20000 --lr 0.01 --log-interval 0.2)
"$TRAIN" "${args[@]}" --epochs 50 --run-dir run --checkpoint a.pt >first.out 2>first.err &
pid=$!
for _ in $(seq 1 600); do grep -q "epoch 1/50 step" first.err && break; sleep 0.1; done
grep -q "epoch 1/50 step" first.err || { kill $pid; fail "the first run did not start training"; }
expect 1 "run folder (/.*/)?run is in use by another cifar-train \\(pid $pid\\)" -- \
  "$TRAIN" "${args[@]}" --epochs 1 --run-dir run --checkpoint b.pt
kill -INT $pid
wait $pid
[[ $(grep -c '^epoch' run/metrics.csv) -le 1 ]] || fail "metrics.csv has two headers"
[[ ! -e b.pt ]] || fail "the second run wrote a checkpoint"
expect 2 "(/.*/)?run already holds another run's results.*--overwrite" -- \
  "$TRAIN" "${args[@]}" --epochs 1 --train-limit 100 --run-dir run --checkpoint b.pt
expect 0 "replacing (/.*/)?a.pt \\(net, epoch 0 and [0-9]+ steps\\) written by another run" -- \
  "$TRAIN" "${args[@]}" --epochs 1 --train-limit 100 --run-dir run --overwrite --checkpoint a.pt
[[ $(grep -c '^1,' run/metrics.csv) -eq 1 ]] || fail "--overwrite kept the old metrics rows"
expect 0 "resuming" -- "$TRAIN" "${args[@]}" --epochs 2 --train-limit 100 --config run/config.toml --resume run/last.pt

# Runs started together without --run-dir each take a folder of their own
# (claimed as the run is resolved), and a refused start leaves no folder.
rm -rf runs
pids=()
for seed in 1 2 3; do
  "$TRAIN" "${args[@]}" --epochs 1 --train-limit 100 --seed $seed --checkpoint s$seed.pt \
    >"s$seed.out" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a run started beside two others failed: $(cat s*.out)"; done
[[ $(ls runs | wc -l) -eq 3 ]] || fail "three runs did not take three folders: $(ls runs)"
rm -rf runs
expect 1 "cannot write nodir/x.pt" -- "$TRAIN" "${args[@]}" --epochs 1 --checkpoint nodir/x.pt
[[ ! -e runs ]] || fail "a refused start left its default folder: $(ls -aR runs)"
expect 1 "cannot write nodir/x.pt" -- "$TRAIN" "${args[@]}" --epochs 1 --checkpoint nodir/x.pt \
  --run-dir new/run
[[ ! -e new ]] || fail "a start refused under the lock left the folder it made: $(ls -aR new)"
