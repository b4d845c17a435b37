#!/usr/bin/env bash
# SIGKILL at random moments of a run that writes a checkpoint every fraction
# of a second: whatever is on disk afterwards always loads (writes are atomic),
# and --resume continues from the last completed epoch.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
args=(--data data --device cpu --threads 2 --batch-size 50 --train-limit 200
      --eval-batch-size 2500 --lr 0.01 --run-dir run --checkpoint net.pt)
# A first epoch, so that every kill below hits a run that has a checkpoint.
"$TRAIN" "${args[@]}" --epochs 1 -q >/dev/null 2>&1 || fail "the first epoch failed"
RANDOM=42
kills=0
for round in $(seq 1 5); do
  before=$(wc -l <run/metrics.csv)
  "$TRAIN" "${args[@]}" --epochs 1000 --resume net.pt -q >/dev/null 2>&1 &
  pid=$!
  # Wait for this run to finish an epoch (start-up takes seconds on a loaded
  # machine), then kill at a random moment of the epochs that follow.
  for _ in $(seq 1 600); do
    (( $(wc -l <run/metrics.csv) > before )) && break
    kill -0 $pid 2>/dev/null || fail "round $round: the run exited before it was killed"
    sleep 0.1
  done
  sleep "0.$(( RANDOM % 10 ))$(( RANDOM % 10 ))"
  kill -KILL $pid
  wait $pid 2>/dev/null
  kills=$((kills + 1))
  for f in net.pt run/last.pt run/best.pt; do
    "$EVAL" --checkpoint $f --data data --device cpu --json >eval.json 2>eval.err \
      || { cat eval.err; fail "after kill $kills, $f does not load"; }
  done
done
epochs=$(awk -F, 'END { print $1 }' run/metrics.csv)
# Each kill must have landed in a running epoch, not before training began.
[[ $epochs -gt $kills ]] || fail "only $epochs epochs were written in $kills runs: the kills came too early to test anything"
pass "$kills SIGKILLs during training and checkpoint writes ($epochs epochs written in all); the checkpoints loaded after every one"
# A kill between an epoch's metrics row and its checkpoint leaves a row the
# checkpoint does not hold: unless the kills above landed there (net.pt then
# holds one epoch less than metrics.csv), make one. The resume trains that
# epoch again and its row appears once.
held=$(python3 -c 'import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", b[12:16])[0]
print(json.loads(b[16:16 + n])["epoch"])' net.pt)
last=$(tail -n 1 run/metrics.csv)
(( held == epochs )) && echo "$((epochs + 1)),${last#*,}" >>run/metrics.csv
# The temporary files a kill mid-write leaves (as write_file_atomically names
# them) go when the run folder opens again; a file of the user's stays.
touch run/.last.pt.tmp0123abcd run/.events.out.tfevents.1.host.2.0.tmpdeadbeef run/.notes.txt.tmp0123abcd
"$TRAIN" "${args[@]}" --epochs $((epochs + 100)) --resume net.pt >/dev/null 2>resume.err &
pid=$!
wait_for_log "epoch [0-9][0-9]*/" resume.err $pid
kill -INT $pid
wait $pid
from=$(grep -Eo "resuming net.pt from epoch [0-9]+ step 0" resume.err | awk '{ print $5 }')
[[ $from == $((held + 1)) ]] \
  || { cat resume.err; fail "resume after kill started at epoch '$from', not after epoch $held"; }
grep -q "dropped the rows of epoch" resume.err \
  || { cat resume.err; fail "the rows the checkpoint does not hold were not dropped"; }
awk -F, 'NR > 1 && $1 != NR - 1 { bad = 1 } END { exit bad }' run/metrics.csv \
  || { cut -d, -f1 run/metrics.csv | tr '\n' ' '; fail "metrics.csv's epochs are not 1, 2, 3, ... once each"; }
grep -Eq "removed ([2-9]|[0-9]{2,}) temporary files a killed run left in run" resume.err || { cat resume.err; fail "no word of the temporary files removed"; }
[[ ! -e run/.last.pt.tmp0123abcd && -e run/.notes.txt.tmp0123abcd ]] || fail "the wrong temporary files went: $(ls -a run)"
[[ -z $(ls -a run | grep -v notes | grep '\.tmp') ]] || fail "temporary files left after the resume: $(ls -a run)"
pass "resume after SIGKILL: $(grep -Eo 'resuming .*' resume.err); metrics.csv holds epochs 1-$(awk -F, 'END { print $1 }' run/metrics.csv) once each"
