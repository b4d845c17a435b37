#!/usr/bin/env bash
# One epoch of net on the real CIFAR-10 on the CPU with settings that learn
# fast must reach 45% test accuracy, and cifar-eval on the checkpoint it wrote
# must report exactly the same figure.
source "$(dirname "$0")/lib/common.bash"
need_real_data
"$TRAIN" --data "$REAL_DATA" --device cpu --model net --epochs 1 --batch-size 32 --lr 0.02 \
  --momentum 0.9 --schedule onecycle --checkpoint net.pt --run-dir run --log-interval 5 >train.out 2>train.err \
  || { cat train.err >&2; fail "cifar-train failed"; }
cat train.err train.out
train_acc=$(awk -F, 'NR == 2 { print $5 }' run/metrics.csv)
"$EVAL" --checkpoint net.pt --data "$REAL_DATA" --device cpu --json >eval.json || fail "cifar-eval failed"
eval_acc=$(json_field eval.json accuracy)
echo "training run: test accuracy $train_acc; cifar-eval: $eval_acc"
python3 - "$train_acc" "$eval_acc" <<'PY' || exit 1
import sys
train, ev = map(float, sys.argv[1:])
assert train >= 0.45, f"test accuracy {train:.4f} < 0.45"
assert abs(train - ev) < 1e-6, f"cifar-eval says {ev}, the training run said {train}"
PY
grep -q "Accuracy for class: airplane" train.out || fail "no per-class report"
pass "accuracy $train_acc >= 0.45, cifar-eval agrees"
