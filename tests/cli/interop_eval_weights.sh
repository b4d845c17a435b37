#!/usr/bin/env bash
# Python -> C++ through cifar-eval --weights: the Python Net trained briefly
# in Python, saved with torch.save(model.state_dict()) and with safetensors;
# cifar-eval --weights must report exactly Python's test accuracy.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_real_data
need_python safetensors
py_acc=$("$PY" -m interop_check train_python_net "$REAL_DATA" py 400) || fail "Python training failed"
for w in py_sd.pt py.safetensors; do
  "$EVAL" --weights "$w" --model net --data "$REAL_DATA" --device cpu --json >"$w.json" ||
    fail "cifar-eval --weights $w failed"
  acc=$(json_field "$w.json" accuracy)
  echo "$w: Python accuracy $py_acc, cifar-eval $acc"
  "$PY" -c "import sys; a, b = map(float, sys.argv[1:]); assert round(a * 10000) == round(b * 10000)" \
    "$py_acc" "$acc" || fail "$w: accuracies differ"
done
expect 1 "does not fit a resnet18 model" -- "$EVAL" --weights py_sd.pt --model resnet18 --data "$REAL_DATA" --device cpu
pass "cifar-eval --weights reports Python's accuracy"
