#!/usr/bin/env bash
# --amp fp16's loss scaler against Python's torch.amp.GradScaler, step for
# step: the same 80 steps of a small linear layer under CPU fp16 autocast
# (scaled gradients that overflow float16 at high scales, and injected
# inf/NaN), run by the C++ scaler with cifar-train's SGD
# (cifar-grad-scaler-replay) and by Python's GradScaler with torch.optim.SGD,
# must skip the same steps and leave the same scale, growth tracker, weights
# and bias after every step.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_python safetensors
REPLAY=${CIFAR_GRAD_SCALER_REPLAY:?the build sets CIFAR_GRAD_SCALER_REPLAY}
"$PY" -m grad_scaler_check write steps.safetensors || fail "writing the steps failed"
"$REPLAY" steps.safetensors cpp.safetensors || fail "cifar-grad-scaler-replay failed"
"$PY" -m grad_scaler_check compare steps.safetensors cpp.safetensors ||
  fail "the C++ loss scaler and Python's GradScaler disagree"
pass "C++ GradScaler matches Python's torch.amp.GradScaler step for step"
