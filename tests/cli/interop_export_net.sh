#!/usr/bin/env bash
# C++ -> Python, net: train briefly on the real data, export both formats,
# load each in Python (torch.load with its default weights_only=True, and the
# safetensors package) into the Python Net with strict=True. Python's test
# accuracy must equal cifar-eval's exactly; its logits must equal those of
# cifar-predict (on the whole test set written as lossless PNG) within 1e-4,
# and every predicted class must agree. Then ONNX through Python.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_real_data
need_python safetensors
"$TRAIN" --data "$REAL_DATA" --device cpu --model net --epochs 1 --batch-size 32 --lr 0.02 \
  --train-limit 10000 --checkpoint net.pt --run-dir run >train.log 2>&1 ||
  { tail train.log >&2; fail "cifar-train failed"; }
"$EVAL" --checkpoint net.pt --data "$REAL_DATA" --device cpu --json >eval.json || fail "cifar-eval failed"
expect 0 "wrote net.safetensors" -- "$EXPORT" --checkpoint net.pt --out net.safetensors
expect 0 "wrote net_sd.pt" -- "$EXPORT" --checkpoint net.pt --out net_sd.pt
expect 2 "unknown extension .\.onnx.; use .safetensors, .pt or .pth \(ONNX: write a .safetensors, then run scripts/python/export_onnx.py" -- "$EXPORT" --checkpoint net.pt --out net.onnx
"$PY" -m interop_check write_pngs "$REAL_DATA" png 10000 >files.txt || fail "writing PNGs failed"
mapfile -t files <files.txt
"$PREDICT" --checkpoint net.pt --json --logits "${files[@]}" >predict.json ||
  fail "cifar-predict failed"
"$PY" -m interop_check compare_export "$REAL_DATA" net eval.json predict.json 10000 \
  net.safetensors net_sd.pt || fail "Python disagrees with cifar-eval / cifar-predict"
pass "Python reads both exports; accuracy and logits agree"

# The same predictions from the exported files as from the checkpoint.
"$PREDICT" --weights net.safetensors --json "${files[@]:0:500}" >w1.json 2>w1.err || fail "--weights .safetensors"
grep -q "from the file's metadata" w1.err || fail "no normalisation line: $(cat w1.err)"
"$PREDICT" --weights net_sd.pt --model net --json "${files[@]:0:500}" >w2.json 2>w2.err || fail "--weights .pt"
grep -q "training default" w2.err || fail "no default-normalisation line: $(cat w2.err)"
"$PY" - <<'PY' || fail "--weights predictions differ from --checkpoint ones"
import json
a, b, c = (json.load(open(f)) for f in ("predict.json", "w1.json", "w2.json"))
assert [p["class"] for p in a[:500]] == [p["class"] for p in b] == [p["class"] for p in c]
PY
pass "cifar-predict --weights (both formats) agrees with --checkpoint"

# A checkpoint given to Python is named as one, with the export to make
# (torch.load said "Weights only load failed ... weights_only=False will
# likely succeed", which it would not).
PYTHONPATH="$SRC/scripts/python" "$PY" -c 'import cifar_models; cifar_models.load("net.pt", model="net")' \
  >ck.out 2>&1 && fail "Python loaded a cifar-train checkpoint"
grep -q "ValueError: net.pt is a cifar-train checkpoint, which Python does not read: export its weights first (cifar-export --checkpoint net.pt --out model.safetensors)" ck.out ||
  { cat ck.out; fail "Python's error on a checkpoint does not say to export it"; }
pass "Python on a checkpoint: named as one, with the cifar-export command"

# Metadata cifar-train refuses is refused by Python too, naming the key; a
# ResNet-18 of the other stem is named with the stem to give.
PYTHONPATH="$SRC/scripts/python" "$PY" - <<'PY' || fail "cifar_models.load took what cifar-train refuses"
import torch
from safetensors.torch import load_file, save_file
import cifar_models
sd = load_file("net.safetensors")
for meta, says in (({"model": "net", "mean": "[0.5, 0.5, 0.5]", "std": "[0.5, 0, 0.5]"}, "std"),
                   ({"model": "net", "image_size": "4"}, "image_size 4"),
                   ({"model": "net", "image_size": "64"}, "net takes 32 px"),
                   ({"model": "net", "stem": "weird"}, "stem 'weird'"),
                   ({"model": "net", "crop_mode": "weird"}, "crop_mode 'weird'"),
                   ({"model": "net", "crop_mode": "center", "crop_pct": "2"}, "crop_pct '2'"),
                   ({"model": "net", "crop_pct": "nan"}, "crop_pct 'nan'"),
                   ({"model": "net", "mean": "[0.5,", "std": "[0.5]"}, "mean is not JSON")):
    save_file(sd, "meta.safetensors", metadata=meta)
    try:
        cifar_models.load("meta.safetensors")
    except ValueError as e:
        assert says in str(e), (meta, str(e))
    else:
        raise AssertionError(f"{meta} was taken")
# Values the tools refuse: NaN, and integers where floats belong.
for edit, says in ((lambda t: t.fill_(float("nan")), "NaN or infinite values: conv1.weight (450 of 450)"),
                   (lambda t: t.to(torch.int32), "not: conv1.weight (int32)")):
    odd = dict(sd)
    odd["conv1.weight"] = edit(sd["conv1.weight"].clone())
    save_file(odd, "odd.safetensors", metadata={"model": "net"})
    try:
        cifar_models.load("odd.safetensors")
    except ValueError as e:
        assert says in str(e), str(e)
    else:
        raise AssertionError(f"{says}: taken")
r18 = cifar_models.make_model("resnet18", 10, "imagenet").state_dict()
torch.save(r18, "r18.pth")
try:
    cifar_models.load("r18.pth", model="resnet18")
except ValueError as e:
    assert "stem='imagenet'" in str(e) and "--stem imagenet" in str(e), str(e)
else:
    raise AssertionError("an imagenet-stem ResNet-18 loaded as a cifar one")
PY
pass "cifar_models.load refuses the metadata cifar-train refuses, and names the stem to give"

if "$PY" -c "import onnx, onnxscript" 2>/dev/null; then
  "$PY" "$SRC/scripts/python/export_onnx.py" net.safetensors net.onnx >onnx.log 2>&1 ||
    { tail onnx.log >&2; fail "export_onnx.py failed"; }
  grep -q "checked with onnx.checker" onnx.log || fail "ONNX not checked: $(tail -3 onnx.log)"
  pass "ONNX exported and checked: $(tail -1 onnx.log)"
  # Nothing destroyed: the weights as the output, another name, a file that
  # is no ONNX model; an ONNX model is replaced.
  sha=$(sha256sum net.safetensors)
  echo "my notes" >notes.onnx
  ln -s net.safetensors same.onnx
  for out in net.safetensors notes.onnx same.onnx; do
    "$PY" "$SRC/scripts/python/export_onnx.py" net.safetensors "$out" >refused.log 2>&1 &&
      fail "export_onnx.py wrote over $out"
    grep -q "error: .*$out" refused.log || fail "no reason for $out: $(cat refused.log)"
  done
  [[ $(sha256sum net.safetensors) == "$sha" && $(cat notes.onnx) == "my notes" ]] ||
    fail "export_onnx.py changed a file it refused"
  "$PY" "$SRC/scripts/python/export_onnx.py" net.safetensors net.onnx >onnx.log 2>&1 ||
    { tail onnx.log >&2; fail "export_onnx.py did not replace its own net.onnx"; }
  pass "export_onnx.py refuses its input, a name without .onnx and a file that is no ONNX model"
  # Weights that do not fit are said in one line naming the tensors.
  "$PY" -c "from safetensors.torch import load_file, save_file
sd = load_file('net.safetensors'); del sd['conv2.bias']
save_file(sd, 'short.safetensors', metadata={'model': 'net'})" || fail "could not write short.safetensors"
  "$PY" "$SRC/scripts/python/export_onnx.py" short.safetensors short.onnx >short.log 2>&1
  [[ $? -eq 2 ]] || { cat short.log; fail "export_onnx.py on weights that do not fit did not exit 2"; }
  grep -q "export_onnx.py: error: short.safetensors does not load as .*Missing key(s) in state_dict: \"conv2.bias\"" short.log ||
    { cat short.log; fail "export_onnx.py does not name the missing tensor in its line"; }
  pass "export_onnx.py names the tensors that do not fit"
else
  echo "note: onnx/onnxscript not installed; ONNX export not tested"
fi
