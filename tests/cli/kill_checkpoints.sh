#!/usr/bin/env bash
# SIGKILL at random moments of a run that writes a checkpoint every fraction
# of a second: whatever is on disk afterwards always loads (writes are atomic),
# and --resume continues from the last completed epoch.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
args=(--data data --device cpu --threads 1 --epochs 1000 --batch-size 50 --train-limit 200
      --eval-batch-size 2500 --lr 0.01 --run-dir run --checkpoint net.pt)
RANDOM=42
kills=0
loads=0
for round in $(seq 1 10); do
  if [[ -f net.pt ]]; then
    "$TRAIN" "${args[@]}" -q --resume net.pt >/dev/null 2>&1 &
  else
    "$TRAIN" "${args[@]}" -q >/dev/null 2>&1 &
  fi
  pid=$!
  sleep "$(( 1 + RANDOM % 2 )).$(( RANDOM % 10 ))"
  kill -KILL $pid
  wait $pid 2>/dev/null
  kills=$((kills + 1))
  if [[ -f net.pt ]]; then
    "$EVAL" --checkpoint net.pt --data data --device cpu --json >eval.json 2>eval.err \
      || { cat eval.err; fail "after kill $kills the checkpoint on disk does not load"; }
    loads=$((loads + 1))
  fi
  for f in run/last.pt run/best.pt; do
    [[ ! -f $f ]] || "$EVAL" --checkpoint $f --data data --device cpu --json >/dev/null 2>&1 \
      || fail "after kill $kills $f does not load"
  done
done
[[ $loads -ge 7 ]] || fail "only $loads of $kills kills left a checkpoint to check; the run is too slow"
pass "$kills SIGKILLs, the checkpoint loaded after each of $loads"
last_epoch=$(awk -F, 'END { print $1 }' run/metrics.csv)
"$TRAIN" "${args[@]}" --epochs $((last_epoch + 100)) --resume net.pt >/dev/null 2>resume.err &
pid=$!
sleep 2
kill -INT $pid
wait $pid
grep -Eq "resuming net.pt from epoch [0-9]+ step 0" resume.err || { cat resume.err; fail "resume after kill did not start at an epoch boundary"; }
pass "resume after SIGKILL: $(grep -Eo 'resuming .*' resume.err)"
