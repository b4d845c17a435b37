#!/usr/bin/env bash
# Ctrl-C (SIGINT) or SIGTERM mid-epoch: the step finishes, a checkpoint is
# written, the message says how to resume, the exit status is 130; --resume
# then continues from that step. A second signal exits at once.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
args=(--data data --device cpu --threads 1 --epochs 2 --batch-size 8 --train-limit 20000 --lr 0.01
      --run-dir run --checkpoint net.pt)

"$TRAIN" "${args[@]}" >train.out 2>train.err &
pid=$!
sleep 3
kill -INT $pid
wait $pid
status=$?
cat train.err | grep -v settings
[[ $status -eq 130 ]] || fail "exit status $status after SIGINT, expected 130"
grep -Eq "checkpoint written to net.pt; resume with: /[^ ]*/cifar-train --config run/config.toml --resume net.pt" train.err \
  || fail "no resume instructions"
"$EVAL" --checkpoint net.pt --data data --device cpu --json >eval.json 2>/dev/null || fail "the interrupt checkpoint does not load"
pass "SIGINT wrote a loadable checkpoint and exited 130"

"$TRAIN" --config run/config.toml --resume net.pt >resume.out 2>resume.err || { cat resume.err; fail "resume failed"; }
grep -Eq "resuming net.pt from epoch 1 step [1-9][0-9]*" resume.err || fail "did not resume mid-epoch"
[[ $(grep -c '^[12],' run/metrics.csv) -eq 2 ]] || fail "metrics.csv should end with epochs 1 and 2"
pass "--resume finished the interrupted run: $(grep -Eo 'resuming .*' resume.err)"

# SIGTERM behaves the same; two signals in a row exit at once.
"$TRAIN" "${args[@]}" --run-dir run2 --checkpoint net2.pt >/dev/null 2>term.err &
pid=$!
sleep 3
kill -TERM $pid
wait $pid
[[ $? -eq 130 ]] || fail "SIGTERM: expected exit 130"
grep -q "interrupted (signal 15)" term.err || fail "SIGTERM was not reported"
pass "SIGTERM writes a checkpoint too"
"$TRAIN" "${args[@]}" --run-dir run3 --checkpoint net3.pt >/dev/null 2>twice.err &
pid=$!
sleep 3
kill -INT $pid; kill -INT $pid
wait $pid
[[ $? -eq 130 ]] || fail "two SIGINTs: expected exit 130"
grep -Eq "second interrupt: exiting now|checkpoint written" twice.err || fail "no word on the second interrupt"
pass "a second SIGINT exits at once"
