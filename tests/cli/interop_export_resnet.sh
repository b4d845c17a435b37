#!/usr/bin/env bash
# C++ -> Python, ResNet-18 (BatchNorm buffers, downsample names): train on
# 160 images, export both formats, load in Python with strict=True.
# Python's logits on the first 200 test images must equal cifar-predict's
# within 1e-4, and its classes all of them. (Whole-test-set accuracy is
# compared in interop_export_net.sh: a ResNet-18 pass over 10,000 images in
# Python would add minutes on a CPU; for the same reason the training run
# evaluates on the first 200 test images only, --test-limit.)
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_real_data
need_python safetensors
"$TRAIN" --data "$REAL_DATA" --device cpu --model resnet18 --epochs 1 --batch-size 32 --lr 0.02 \
  --train-limit 160 --test-limit 200 --checkpoint r.pt --run-dir run >train.log 2>&1 ||
  { tail train.log >&2; fail "cifar-train failed"; }
grep -q "(cifar10, 10 classes: 160 training, 0 validation, 200 test images)" train.log ||
  fail "--train-limit 160 --test-limit 200 not in the data line: $(grep 'data:' train.log)"
expect 0 "wrote r.safetensors" -- "$EXPORT" --checkpoint r.pt --out r.safetensors
expect 0 "wrote r.pth" -- "$EXPORT" --checkpoint r.pt --out r.pth
"$PY" -m interop_check write_pngs "$REAL_DATA" png 200 >files.txt || fail "writing PNGs failed"
mapfile -t files <files.txt
"$PREDICT" --checkpoint r.pt --json --logits "${files[@]}" >predict.json || fail "cifar-predict failed"
"$PY" -m interop_check compare_export "$REAL_DATA" resnet18 - predict.json 200 \
  r.safetensors r.pth || fail "Python disagrees with cifar-predict"
pass "ResNet-18: Python reads both exports; logits and classes agree"
