#!/usr/bin/env bash
# cifar-train --amp fp16 on the CPU: trains the net with loss scaling, says
# per epoch how many steps it skipped and where the loss scale stands, and
# --resume continues the scale and its growth tracker from the checkpoint
# (the count of good steps since the last change goes on from where the
# first run left it). Then cifar-eval reads the checkpoint.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
common=(--data data --device cpu --threads 1 --model net --batch-size 20 --lr 0.01
        --train-limit 400 --test-limit 1000 --seed 3 --amp fp16 --log-interval 100)
"$TRAIN" "${common[@]}" --epochs 1 --checkpoint fp16.pt --run-dir run >first.out 2>&1 ||
  { tail -20 first.out >&2; fail "cifar-train --amp fp16 failed"; }
summary=$(grep -Eo "epoch 1: [0-9]+ of 20 steps skipped for inf/NaN gradients, loss scale now [0-9]+" \
  first.out) || { cat first.out >&2; fail "no line with the epoch's skipped steps and loss scale"; }
skipped=$(awk '{print $3}' <<<"$summary")
scale=$(awk '{print $NF}' <<<"$summary")
logged=$(grep -c "inf/NaN gradients at loss scale [0-9]*: step skipped, scale now" first.out)
[[ $logged -eq $skipped ]] || fail "$skipped steps skipped but $logged logged"
# Good steps since the scale last changed: all 20, or those after the last skip.
last=$(grep -Eo "step [0-9]+: inf/NaN" first.out | tail -1 | grep -Eo "[0-9]+")
if [[ -z $last ]]; then tracker=20; else tracker=$((19 - last)); fi
pass "$summary (growth tracker $tracker)"
grep -q "warn.*--amp fp16 on the CPU: works, but" first.out || fail "no warning that CPU fp16 is slow"
grep -Eq "epoch 1/1: train [0-9.]+ [0-9.]+% test [0-9.]+ [0-9.]+%" first.out ||
  { cat first.out >&2; fail "no test accuracy in the epoch line"; }

"$TRAIN" "${common[@]}" --epochs 2 --resume fp16.pt --checkpoint fp16.pt --run-dir run \
  >second.out 2>&1 || { tail -20 second.out >&2; fail "resuming the fp16 run failed"; }
grep -q "loss scale $scale continued ($tracker good steps since its last change)" second.out ||
  { grep -i "scale" second.out >&2; fail "the resumed run does not continue scale $scale and tracker $tracker"; }
grep -Eq "epoch 2: [0-9]+ of 20 steps skipped for inf/NaN gradients, loss scale now [0-9]+" second.out ||
  { cat second.out >&2; fail "no skipped-steps line for epoch 2"; }
pass "--resume continued loss scale $scale and growth tracker $tracker"

# A float32 checkpoint resumed with --amp fp16 starts the scale afresh, saying so.
"$TRAIN" "${common[@]/fp16/off}" --epochs 1 --checkpoint fp32.pt --run-dir run32 -q >/dev/null 2>&1 ||
  fail "the float32 run failed"
expect 0 "holds no loss scale .*starts at 65536" -- \
  "$TRAIN" "${common[@]}" --epochs 2 --resume fp32.pt --checkpoint fp32.pt --run-dir run32
# cifar-eval under fp16 autocast gives the float32 accuracy, within a point.
for amp in fp16 off; do
  "$EVAL" --checkpoint fp16.pt --data data --device cpu --amp $amp --json -q >eval_$amp.json ||
    fail "cifar-eval --amp $amp failed"
done
a16=$(json_field eval_fp16.json accuracy)
a32=$(json_field eval_off.json accuracy)
python3 -c "import sys; sys.exit(abs($a16 - $a32) > 0.01)" ||
  fail "cifar-eval --amp fp16 accuracy $a16, float32 $a32"
pass "cifar-eval --amp fp16: accuracy $a16 (float32 $a32)"
