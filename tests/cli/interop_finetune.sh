#!/usr/bin/env bash
# Fine-tuning from Python weights: cifar-train --init-weights, then one epoch,
# must improve on the imported model's accuracy.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_real_data
need_python safetensors
py_acc=$("$PY" -m interop_check train_python_net "$REAL_DATA" py 200) || fail "Python training failed"
"$TRAIN" --init-weights py.safetensors --model net --data "$REAL_DATA" --device cpu --epochs 1 --train-limit 10000 \
  --batch-size 32 --lr 0.01 --checkpoint ft.pt --run-dir run >train.log 2>&1 ||
  { tail train.log >&2; fail "cifar-train --init-weights failed"; }
ft_acc=$(awk -F, 'NR == 2 { print $5 }' run/metrics.csv)
echo "imported (Python) accuracy $py_acc; after one epoch of fine-tuning $ft_acc"
"$PY" -c "import sys; a, b = map(float, sys.argv[1:]); assert b > a" "$py_acc" "$ft_acc" ||
  fail "fine-tuning did not improve on the imported weights"
[[ -f run/model.safetensors ]] || fail "no run/model.safetensors at the end of training"
pass "fine-tuned from Python weights: $py_acc -> $ft_acc"
