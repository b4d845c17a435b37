#!/usr/bin/env bash
# Ctrl-C (SIGINT) or SIGTERM mid-epoch: the step finishes, a checkpoint is
# written, the message says how to resume, the exit status is 130; --resume
# then continues from that step. Signals that arrive together (as from
# `timeout`, to the process and its group) are one request and write a
# checkpoint; a separate signal later exits at once (130, without one).
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
args=(--data data --device cpu --threads 1 --epochs 2 --batch-size 8 --train-limit 20000 --lr 0.01
      --run-dir run --checkpoint net.pt --log-interval 0.2)

# wait_for_training ERRFILE PID: until the run logs its first progress line.
wait_for_training() { wait_for_log "epoch 1/2 step" "$1" "$2"; }

"$TRAIN" "${args[@]}" >train.out 2>train.err &
pid=$!
wait_for_training train.err $pid
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

# SIGTERM behaves the same.
"$TRAIN" "${args[@]}" --run-dir run2 --checkpoint net2.pt >/dev/null 2>term.err &
pid=$!
wait_for_training term.err $pid
kill -TERM $pid
wait $pid
[[ $? -eq 130 ]] || fail "SIGTERM: expected exit 130"
grep -q "interrupted (signal 15)" term.err || fail "SIGTERM was not reported"
pass "SIGTERM writes a checkpoint too"

# SIGHUP (a closed terminal) too, unless it is ignored, as nohup does.
"$TRAIN" "${args[@]}" --run-dir run2h --checkpoint net2h.pt >/dev/null 2>hup.err &
pid=$!
wait_for_training hup.err $pid
kill -HUP $pid
wait $pid
[[ $? -eq 130 ]] || fail "SIGHUP: expected exit 130"
grep -q "interrupted (signal 1) .*checkpoint written to net2h.pt" hup.err || { cat hup.err; fail "SIGHUP wrote no checkpoint"; }
bash -c 'trap "" HUP; exec "$@"' nohup "$TRAIN" "${args[@]}" --run-dir run2n --checkpoint net2n.pt \
  >/dev/null 2>nohup.err &
pid=$!
wait_for_training nohup.err $pid
kill -HUP $pid
sleep 1
kill -INT $pid
wait $pid
grep -q "interrupted (signal 2)" nohup.err || { cat nohup.err; fail "an ignored SIGHUP stopped the run"; }
pass "SIGHUP writes a checkpoint; ignored (nohup), it is left alone"

# SIGPIPE (the log piped to a reader that is gone: `2>&1 | tee log`, tee
# closed) stops the run with a checkpoint too, not at once without one; each
# later log line raises it again and is not a second request.
{ env --default-signal=PIPE "$TRAIN" "${args[@]}" --run-dir run2p --checkpoint net2p.pt 2>&1 >/dev/null
  echo $? >pipe.status; } | grep -m1 -q "epoch 1/2 step"
[[ $(cat pipe.status) -eq 130 ]] || fail "a closed log pipe: exit $(cat pipe.status), expected 130"
"$EVAL" --checkpoint net2p.pt --data data --device cpu --json >/dev/null 2>&1 || fail "a closed log pipe wrote no checkpoint"
pass "a closed log pipe (SIGPIPE) writes a checkpoint and exits 130"

# Two signals that arrive together are one request: the process is stopped
# while SIGTERM and SIGINT are sent, so both are delivered at once.
"$TRAIN" "${args[@]}" --run-dir run3 --checkpoint net3.pt >/dev/null 2>together.err &
pid=$!
wait_for_training together.err $pid
kill -STOP $pid; kill -TERM $pid; kill -INT $pid; kill -CONT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || fail "two signals together: exit status $status, expected 130"
grep -q "checkpoint written to net3.pt" together.err || { cat together.err; fail "two signals together did not write a checkpoint"; }
"$EVAL" --checkpoint net3.pt --data data --device cpu --json >/dev/null 2>&1 || fail "net3.pt does not load"
pass "SIGTERM and SIGINT together are one request: a checkpoint, exit 130"

# As `timeout` does it: SIGTERM to the process and to its process group.
timeout -s TERM 600 "$TRAIN" "${args[@]}" --run-dir run4 --checkpoint net4.pt >/dev/null 2>timeout.err &
tpid=$!
wait_for_training timeout.err $tpid
kill -TERM $tpid  # timeout passes it on to its child and to its group
wait $tpid
grep -q "checkpoint written to net4.pt" timeout.err || { cat timeout.err; fail "a SIGTERM sent by timeout did not write a checkpoint"; }
pass "timeout's double SIGTERM wrote a checkpoint"

# A second, separate signal exits at once. The run is frozen once it has
# taken the first (steps of 4000 images take seconds, so before the step
# ends); the second comes a second later.
"$TRAIN" "${args[@]}" --batch-size 4000 --run-dir run5 --checkpoint net5.pt >/dev/null 2>twice.err &
pid=$!
wait_for_training twice.err $pid
kill -INT $pid
for _ in $(seq 1 500); do grep -q "^interrupt: finishing" twice.err && break; sleep 0.01; done
kill -STOP $pid
sleep 1
kill -INT $pid; kill -CONT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || fail "a later second SIGINT: exit status $status, expected 130"
grep -q "second interrupt: exiting now, without a checkpoint" twice.err || { cat twice.err; fail "no word on the second interrupt"; }
! grep -q "checkpoint written" twice.err || fail "a later second SIGINT still wrote a checkpoint"
pass "a second SIGINT a second later exits at once"

# Ctrl-C while the last epoch is evaluated: the checkpoint keeps the epoch's
# training, and the printed command evaluates and records it (its metrics
# row, best.pt, model.safetensors) without training it again. Resuming it
# with fewer --epochs than the epoch it stopped in is refused, not a crash.
# The checkpoint's name holds a space and a quote: the printed command
# quotes it as a shell reads it.
eval_args=(--data data --device cpu --threads 1 --epochs 2 --eval-every 2 --batch-size 50
           --train-limit 2000 --lr 0.01 --eval-batch-size 1 --tta 2 --log-interval 0.2
           --run-dir run6 --checkpoint "net 6's.pt")
"$TRAIN" "${eval_args[@]}" >/dev/null 2>evalstop.err &
pid=$!
wait_for_log "^evaluating\|evaluating .*[0-9]" evalstop.err $pid
kill -INT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat evalstop.err; fail "SIGINT during evaluation: exit $status, expected 130"; }
grep -q "interrupted (signal 2) while evaluating epoch 2" evalstop.err || { cat evalstop.err; fail "the interrupt did not land in epoch 2's evaluation"; }
expect 2 "net 6's.pt stopped in epoch 2 .*past --epochs 1: pass --epochs 2 or more" -- \
  "$TRAIN" --config run6/config.toml --resume "net 6's.pt" --epochs 1
resume=$(grep -o "resume with: .*" evalstop.err | sed 's/^resume with: //')
grep -qF -- "--resume 'net 6'\"'\"'s.pt'" <<<"$resume" || fail "the printed command is not quoted: $resume"
eval "$resume" >/dev/null 2>evalresume.err || { cat evalresume.err; fail "the printed resume command failed"; }
grep -Eq "resuming net 6's.pt from epoch 2 step 40" evalresume.err || { cat evalresume.err; fail "did not resume at the end of epoch 2"; }
[[ $(grep -c '^[12],' run6/metrics.csv) -eq 2 ]] || { cat run6/metrics.csv; fail "metrics.csv should hold epochs 1 and 2"; }
row=$(grep '^2,' run6/metrics.csv)
[[ $(cut -d, -f2 <<<"$row") != 0.000000 && $(cut -d, -f6 <<<"$row") != 0 ]] \
  || fail "epoch 2's row lost its training figures: $row"
[[ -f run6/best.pt && -f run6/model.safetensors ]] || fail "the resumed run did not finish its outputs"
pass "an interrupt during the last evaluation is completed by the printed command"

# Ctrl-C while an image folder is decoded (600 links to one 1024 px PNG, a
# few hundred between checks at one thread take seconds): the decoding stops
# at its next check with a line that says so, exit 130, and nothing is left:
# no cache, no run folder, no checkpoint.
python3 - <<'PY'
import os, random, struct, zlib
side = 1024
random.seed(1)
rows = b"".join(b"\0" + random.randbytes(3 * side) for _ in range(side))
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open("big.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)) +
                            chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b""))
for c in "ab":
    os.makedirs(f"photos/train/{c}")
    for i in range(300):
        os.symlink("../../../big.png", f"photos/train/{c}/{i:03d}.png")
PY
# interrupt_decoding DATA N ERR: a run on DATA (N images in train/) signalled
# once it says it decodes them; its stderr in ERR; fails unless it exits 130
# with the notice and leaves no cache, run folder (run-DATA) or checkpoint.
interrupt_decoding() {
  local data=$1 n=$2 err=$3
  "$TRAIN" --data "$data" --val-split 10 --device cpu --threads 1 --epochs 1 --run-dir "run-$data" \
    --checkpoint "$data.pt" >/dev/null 2>"$err" &
  local pid=$!
  wait_for_log "decoding $n images" "$err" $pid
  kill -STOP $pid; kill -INT $pid; kill -CONT $pid
  wait $pid
  local status=$?
  [[ $status -eq 130 ]] || { cat "$err"; fail "SIGINT while decoding $data: exit $status, expected 130"; }
  grep -q "^interrupt: stopping the decoding" "$err" || { cat "$err"; fail "no notice on the signal"; }
  [[ ! -e $data/.cifar-cache && ! -e run-$data && ! -e $data.pt ]] ||
    fail "an interrupted decoding left files: $(ls -a "$data" "run-$data" "$data.pt" 2>&1)"
}
interrupt_decoding photos 600 decode.err
grep -Eq "interrupted \(signal 2\) while decoding photos/train: [0-9]+ of its 600 images done; this split was not cached" decode.err ||
  { cat decode.err; fail "the interrupt during decoding was not reported"; }
pass "SIGINT while decoding: a line that says so, exit 130, nothing written"

# A signal during the last (here the only) few hundred images stops the run
# too: the request is not left for the training's guard to clear.
mkdir -p few/train/a few/train/b
for c in a b; do for i in $(seq -w 0 99); do ln -s ../../../big.png few/train/$c/$i.png; done; done
interrupt_decoding few 200 few.err
grep -q "while decoding few/train: 200 of its 200 images done; this split was not cached" few.err ||
  { cat few.err; fail "the interrupt in the last chunk was not reported"; }
pass "SIGINT in the last chunk of decoding stops the run too"

# Ctrl-C while the run starts (here during the data's resizing): it stops
# before its folder opens, says so, exits 130 and leaves no run folder or
# checkpoint (the default folder made for it goes too).
start=(--data data --device cpu --threads 1 --model resnet18 --image-size 96 --epochs 1
       --checkpoint early.pt)
"$TRAIN" "${start[@]}" >/dev/null 2>early.err &
pid=$!
wait_for_log "precision:" early.err $pid
kill -INT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat early.err; fail "SIGINT at start: exit status $status, expected 130"; }
grep -q "interrupted (signal 2) before training started: no run folder or checkpoint was written" \
  early.err || { cat early.err; fail "SIGINT at start was not said"; }
[[ ! -e runs && ! -e early.pt ]] || fail "SIGINT at start left files: $(ls -d runs early.pt 2>/dev/null)"
pass "SIGINT while the run starts: one line, exit 130, nothing left"

# A run whose --checkpoint another run, still training, took over: it goes on
# in its last.pt, and its interrupt names that file, not the other run's.
# Its epoch (60 steps of resnet18, about 10 s) outlasts the other run's start
# and first checkpoint (about 3 s).
slow=(--data data --device cpu --threads 1 --model resnet18 --batch-size 8 --train-limit 480
      --test-limit 100 --epochs 100 --log-interval 0.2 --checkpoint shared.pt)
"$TRAIN" "${slow[@]}" --run-dir taken >/dev/null 2>taken.err &
pid=$!
wait_for_log "epoch 1/100 step" taken.err $pid
"$TRAIN" --data data --device cpu --threads 1 --train-limit 200 --test-limit 100 --epochs 100000 \
  --run-dir other --checkpoint shared.pt >/dev/null 2>other.err &
other=$!
wait_for_log "this run no longer writes it (its latest state is taken/last.pt)" taken.err $pid ||
  { cat other.err; fail "the other run did not take shared.pt over"; }
kill -INT $pid
wait $pid
status=$?
kill -KILL $other
wait $other 2>/dev/null
[[ $status -eq 130 ]] || { cat taken.err; fail "SIGINT: exit $status, expected 130"; }
grep -Eq "checkpoint written to taken/last.pt; resume with: .* --config taken/config.toml --resume taken/last.pt$" \
  taken.err || { cat taken.err; fail "the interrupt names another run's checkpoint"; }
pass "a run whose --checkpoint another run took names its own last.pt to resume"
