#!/usr/bin/env bash
# --optimizer adamw and --ema resume exactly: on the CPU with a fixed seed, a
# run interrupted in the middle of epoch 1 and resumed, and a run of 1 epoch
# resumed for a second, end with the same model.safetensors bytes (the
# average of the weights, which --ema saves as the model) as 2 epochs
# straight. The checkpoint keeps AdamW's moments and step counts, and the
# live weights beside their average.
source "$(dirname "$0")/lib/common.bash"
need_real_data
# One thread, as resume.sh (two threads each beside it: 199 s).
common=(--data "$REAL_DATA" --device cpu --threads 1 --model net --batch-size 32 --lr 0.002
        --weight-decay 0.05 --optimizer adamw --ema 0.9 --train-limit 6000 --test-limit 500
        --seed 11 --augment --log-interval 0.1 --no-tensorboard)
"$TRAIN" "${common[@]}" -q --epochs 2 --checkpoint straight.pt --run-dir straight >/dev/null \
  || fail "straight run failed"
"$TRAIN" "${common[@]}" -q --epochs 1 --checkpoint split.pt --run-dir split >/dev/null \
  || fail "first half failed"
"$TRAIN" "${common[@]}" -q --epochs 2 --resume split.pt --checkpoint split.pt --run-dir split \
  >/dev/null 2>split.err || { cat split.err; fail "resumed half failed"; }

"$TRAIN" "${common[@]}" --epochs 2 --checkpoint mid.pt --run-dir mid >mid.out 2>mid.err &
pid=$!
wait_for_log "epoch 1/2 step" mid.err $pid
kill -INT $pid
wait $pid
status=$?
[[ $status -eq 130 ]] || { cat mid.err; fail "exit status $status after SIGINT, expected 130"; }
step=$(grep -o "interrupted (signal 2) in epoch 1 after step [0-9]*" mid.err | grep -o '[0-9]*$')
[[ -n $step ]] || { cat mid.err; fail "the interrupt did not land in epoch 1"; }
"$TRAIN" "${common[@]}" -q --epochs 2 --resume mid.pt --checkpoint mid.pt --run-dir mid \
  2>resume.err >/dev/null || { cat resume.err; fail "resuming the interrupted run failed"; }

for run in straight split mid; do
  [[ -f $run/model.safetensors ]] || fail "$run/model.safetensors was not written"
  echo "$run: $(sha256sum <$run/model.safetensors | cut -c1-16)"
done
cmp -s straight/model.safetensors split/model.safetensors ||
  fail "1 epoch + --resume gives other weights than 2 epochs straight"
pass "1 epoch + --resume gives the straight run's weights, byte for byte"
cmp -s straight/model.safetensors mid/model.safetensors ||
  fail "an interrupt after step $step of epoch 1 + --resume gives other weights than the straight run"
pass "an interrupt after step $step + --resume gives the straight run's weights, byte for byte"

# What is saved is the average: cifar-eval of the checkpoint and of a run
# without --ema differ (the live weights are not the model).
"$TRAIN" "${common[@]/0.9/0}" -q --epochs 2 --checkpoint live.pt --run-dir live >/dev/null \
  || fail "the run without --ema failed"
cmp -s straight/model.safetensors live/model.safetensors &&
  fail "--ema saved the same weights as a run without it"
pass "--ema saves the average, not the live weights"
