#!/usr/bin/env bash
# Fine-tuning with a new head (issue 39, items 4 and 7): a torchvision-layout
# ResNet-18 state_dict (ImageNet stem, 1000 classes, written in Python)
# starts a 2-class run on a made folder with a new head, the log naming both
# counts; with --freeze-body (also with --ema) every body tensor (batch-norm
# statistics too) is bit-identical at the end; --body-lr-scale 0.1 moves the
# body less than the full rate, and resumes exactly; the settings that cannot
# work are refused at start, before anything is written.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_python safetensors

# torchvision's resnet18(num_classes=1000) layout (the project's twin has
# torchvision's names), as .pth and .safetensors; a copy whose layer2.0.conv1
# is 1x1 instead of 3x3 (a body that fits no resnet18).
"$PY" - <<'PY' || fail "writing the ImageNet-layout state_dict failed"
import torch
from safetensors.torch import save_file
from cifar_models import ResNet18
torch.manual_seed(0)
sd = ResNet18(num_classes=1000, stem="imagenet").state_dict()
for name, t in sd.items():  # statistics as a trained model has them, not fresh ones
    if name.endswith("running_mean"): t.uniform_(-0.1, 0.1)
    if name.endswith("running_var"): t.uniform_(0.5, 1.5)
    if name.endswith("num_batches_tracked"): t.fill_(1234)
assert sd["fc.weight"].shape == (1000, 512) and "layer2.0.downsample.0.weight" in sd
torch.save(sd, "r18.pth")
save_file({k: v.contiguous() for k, v in sd.items()}, "r18.safetensors")
sd["layer2.0.conv1.weight"] = torch.zeros(128, 64, 1, 1)
torch.save(sd, "odd.pth")
PY
write_folder pets cat,dog train,test

common=(--model resnet18 --stem imagenet --data pets --device cpu --threads 1 --batch-size 16
  --lr 0.05 --momentum 0.9 --seed 3)
run() { # run NAME ARGS...: a run in folder NAME, its stderr in NAME.log
  local name=$1
  shift
  "$TRAIN" "${common[@]}" --run-dir "$name" --checkpoint "$name.pt" "$@" >"$name.out" 2>"$name.log" ||
    { tail "$name.log" >&2; fail "cifar-train $* failed"; }
}

# --- The new head, the frozen body ---------------------------------------------
run frozen --init-weights r18.pth --epochs 1 --freeze-body
grep -q "init-weights r18.pth: its head (fc) has 1000 classes, the data 2: the body is loaded, and a new 2-class head starts from --seed 3" frozen.log ||
  { cat frozen.log; fail "the log does not name the new head with both class counts"; }
grep -q "freeze-body = true" frozen/config.toml || fail "config.toml does not record --freeze-body"
pass "a 1000-class torchvision state_dict starts a 2-class run with a new head"

# The same with --ema, whose average of a frozen tensor must be the tensor.
run frozen_ema --init-weights r18.pth --epochs 1 --freeze-body --ema 0.9
for folder in frozen frozen_ema; do
"$PY" - "$folder/model.safetensors" <<'PY' || fail "--freeze-body changed the body ($folder)"
import sys, torch
from safetensors.torch import load_file
before, after = torch.load("r18.pth"), load_file(sys.argv[1])
assert set(before) == set(after), set(before) ^ set(after)
body = [k for k in before if not k.startswith("fc.")]
changed = [k for k in body if not torch.equal(before[k], after[k].to(before[k].dtype))]
assert not changed, f"body tensors changed: {changed[:5]} ({len(changed)} of {len(body)})"
assert after["fc.weight"].shape == (2, 512) and after["fc.bias"].shape == (2,)
print(f"{sys.argv[1]}: {len(body)} body tensors bit-identical, running statistics included")
PY
done
pass "--freeze-body (also with --ema): every body tensor bit-identical at the end"

# --- --body-lr-scale -------------------------------------------------------------
run full --init-weights r18.safetensors --epochs 1
run scaled --init-weights r18.safetensors --epochs 1 --body-lr-scale 0.1
grep -q "body-lr-scale = 0.1" scaled/config.toml || fail "config.toml does not record --body-lr-scale"
"$PY" - <<'PY' || fail "--body-lr-scale 0.1 did not move the body less than the full rate"
import torch
from safetensors.torch import load_file
before = torch.load("r18.pth")
def moved(path):
    after = load_file(path)
    return sum((after[k].double() - before[k].double()).abs().sum().item() for k in before
               if not k.startswith("fc.") and "running" not in k and "num_batches" not in k)
full, scaled = moved("full/model.safetensors"), moved("scaled/model.safetensors")
print(f"body moved {full:.4g} at the full rate, {scaled:.4g} at 0.1 of it")
assert 0 < scaled < 0.5 * full
PY
pass "--body-lr-scale 0.1 moves the body less than the full rate"

# Resumed after one epoch, the two-group run ends where the straight one does.
run straight --init-weights r18.safetensors --epochs 2 --body-lr-scale 0.1
"$TRAIN" "${common[@]}" --run-dir scaled --checkpoint scaled.pt --resume scaled.pt --epochs 2 \
  --body-lr-scale 0.1 >resumed.out 2>resumed.log || { tail resumed.log >&2; fail "resuming failed"; }
"$PY" - <<'PY' || fail "--body-lr-scale: 1 epoch + --resume does not give the weights of 2 epochs"
import torch
from safetensors.torch import load_file
a, b = load_file("straight/model.safetensors"), load_file("scaled/model.safetensors")
assert set(a) == set(b)
differ = [k for k in a if not torch.equal(a[k], b[k])]
assert not differ, f"tensors differ: {differ[:5]} ({len(differ)} of {len(a)})"
PY
pass "--body-lr-scale: 1 epoch + --resume gives the weights of the straight run"

# --- Refused at start, nothing written -------------------------------------------
refused() { # refused STATUS PATTERN ARGS...: refused, and no run folder or checkpoint made
  local status=$1 pattern=$2
  shift 2
  expect "$status" "$pattern" -- "$TRAIN" "${common[@]}" --run-dir no --checkpoint no.pt "$@"
  [[ ! -e no && ! -e no.pt ]] || fail "a refused run ($*) wrote files"
}
refused 2 "--freeze-body fine-tunes the body of weights trained before, but this run starts a fresh model.*add --pretrained .*or --init-weights" --epochs 1 --freeze-body
refused 2 "--body-lr-scale 0.5 fine-tunes the body of weights trained before.*add --pretrained .*or --init-weights" --epochs 1 --body-lr-scale 0.5
refused 2 "--freeze-body trains no part of the body, so --body-lr-scale 0.5 has nothing to scale" \
  --epochs 1 --init-weights r18.pth --freeze-body --body-lr-scale 0.5
refused 2 "--freeze-body keeps the body of weights loaded with --init-weights, but --resume full.pt was started without it" \
  --epochs 2 --resume full.pt --freeze-body
refused 2 "--resume frozen.pt was started with --freeze-body: pass --freeze-body again" \
  --epochs 2 --resume frozen.pt
refused 2 "--resume straight.pt was trained with --body-lr-scale 0.1, not 0.5" \
  --epochs 3 --resume straight.pt --body-lr-scale 0.5
refused 1 "odd.pth does not fit a resnet18 model: wrong shape: layer2.0.conv1.weight is \[128, 64, 1, 1\] in the file, \[128, 64, 3, 3\] in the model" \
  --epochs 1 --init-weights odd.pth
pass "fine-tuning settings that cannot work are refused at start, nothing written"
