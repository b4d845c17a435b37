#!/usr/bin/env bash
# cifar-predict and weights written by Python: the Python Net is trained
# briefly in Python and saved as Python users save it (state_dict() with
# torch.save, a {"model": ...} dict, safetensors); cifar-predict --weights on
# 300 test images (PNG) must give Python's class for every one. JPEG and a
# large PNG classify; bad images and bad weights files get one clear line
# each, no trace, and the other files are still classified.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_real_data
need_python safetensors PIL
py_acc=$("$PY" -m interop_check train_python_net "$REAL_DATA" py 400) || fail "Python training failed"
echo "Python Net after 400 steps: test accuracy $py_acc"
"$PY" -m interop_check write_pngs "$REAL_DATA" png 300 >files.txt || fail "writing PNGs failed"
mapfile -t files <files.txt
for w in py_sd.pt py_ckpt.pth py.safetensors; do
  "$PREDICT" --weights "$w" --model net --json "${files[@]}" >"$w.json" 2>"$w.err" ||
    { cat "$w.err" >&2; fail "cifar-predict --weights $w failed"; }
  "$PY" -m interop_check python_predictions "$w" net "$w.json" || fail "$w: predictions differ"
done
pass "Python-saved weights (state_dict, dict under 'model', safetensors) predict as in Python"

# JPEG, a large PNG, --top-k and the text output.
REAL_DATA="$REAL_DATA" "$PY" - <<'PY' || fail "could not write test images"
import os, torch, PIL.Image as Image
import cifar_models as cm
imgs, _ = cm.read_cifar10(os.environ["REAL_DATA"] + "/test_batch.bin")
Image.fromarray(imgs[0].permute(1, 2, 0).numpy()).resize((96, 96), Image.BICUBIC).save("cat.jpg", quality=95)
big = Image.fromarray(imgs[1].permute(1, 2, 0).numpy()).resize((3000, 2000), Image.BICUBIC)
big.save("big.png")
PY
expect 0 "cat.jpg: [a-z]+ [0-9.]+%" -- "$PREDICT" --weights py.safetensors cat.jpg
expect 0 "big.png: [a-z]+ [0-9.]+% \(then [a-z]+ [0-9.]+%, [a-z]+ [0-9.]+%\)" -- \
  "$PREDICT" --weights py.safetensors --top-k 3 big.png
"$PREDICT" --weights py.safetensors --json --top-k 3 big.png cat.jpg >big.json || fail "--json failed"
"$PY" - <<'PY' || fail "the large PNG is not classified as Python classifies it, or bad JSON"
import json, torch, PIL.Image as Image
import torch.nn.functional as F
import cifar_models as cm
out = json.load(open("big.json"))
assert [set(o) for o in out] == [{"file", "class", "probability", "top_k"}] * 2, out
assert len(out[0]["top_k"]) == 3 and out[0]["top_k"][0]["class"] == out[0]["class"]
model, _ = cm.load("py.safetensors")
x = torch.frombuffer(bytearray(Image.open("big.png").tobytes()), dtype=torch.uint8).float().view(2000, 3000, 3)
x = F.interpolate(x.permute(2, 0, 1)[None], size=(32, 32), mode="bilinear", antialias=True)
x = (x - torch.tensor(cm.DEFAULT_MEAN).view(1, 3, 1, 1) * 255) / (torch.tensor(cm.DEFAULT_STD).view(1, 3, 1, 1) * 255)
probs = model(x).softmax(1)[0]
assert cm.CLASSES[probs.argmax()] == out[0]["class"], (out[0], probs)
assert abs(probs.max().item() - out[0]["probability"]) < 1e-3, (out[0], probs.max())
print("big.png:", out[0]["class"], "as in Python")
PY
pass "JPEG, large PNG, --top-k, --json"

# Bad images: one line each; the good image still classified; exit 1.
printf 'hello' >text.png
: >empty.jpg
head -c 400 "${files[0]}" >trunc.png
head -c 2000 cat.jpg >trunc.jpg
mkdir adir
"$PY" - <<'PY'
import struct, zlib
data = open("png/00000.png", "rb").read()
ihdr = struct.pack(">II", 100000, 100000) + data[24:29]
open("huge.png", "wb").write(data[:16] + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + data[33:])
PY
out=$("$PREDICT" --weights py.safetensors text.png empty.jpg trunc.png trunc.jpg huge.png adir missing.png "${files[1]}" 2>err.txt)
status=$?
cat err.txt
[[ $status -eq 1 ]] || fail "exit status $status with bad files, expected 1"
[[ $(grep -c "" <<<"$out") -eq 1 && $out == *00001.png:* ]] || fail "the good file was not classified: $out"
for f in text.png empty.jpg trunc.png trunc.jpg huge.png adir missing.png; do
  [[ $(grep -c "$f" err.txt) -eq 1 ]] || fail "$f: expected exactly one line"
done
grep -q "not a PNG or JPEG" err.txt && grep -q "empty" err.txt && grep -q "100000x100000" err.txt &&
  grep -q "trunc.jpg: the JPEG data is damaged or truncated" err.txt || fail "unclear messages"
grep -Eq 'Exception raised from|frame #|terminate called|Segmentation' err.txt && fail "a trace or crash"
"$PREDICT" --weights py.safetensors --json text.png "${files[1]}" >mixed.json 2>/dev/null
"$PY" -c "import json; o = json.load(open('mixed.json')); assert 'error' in o[0] and 'class' in o[1], o" ||
  fail "--json does not carry the error"
pass "bad images: one line each, others classified, exit 1"

# Bad weights files for cifar-predict (and so for the shared loader).
REAL_DATA="$REAL_DATA" "$PY" - <<'PY' || fail "could not write bad weights"
import json, struct, torch
from safetensors.torch import save_file
import cifar_models as cm
sd = cm.Net().state_dict()
torch.save({k.replace("fc3", "head"): v for k, v in sd.items()}, "names.pt")
torch.save({**sd, "conv1.weight": torch.zeros(6, 3, 3, 3)}, "shapes.pt")
torch.save([1, 2, 3], "list.pt")
torch.save(cm.ResNet18(1000, "imagenet").state_dict(), "tv_resnet18.pth")
save_file(sd, "good.safetensors", metadata={"model": "net"})
good = open("good.safetensors", "rb").read()
n = struct.unpack("<Q", good[:8])[0]
open("trunc_header.safetensors", "wb").write(good[:8 + n // 2])
open("long_header.safetensors", "wb").write(struct.pack("<Q", len(good) * 2) + good[8:])
header = json.loads(good[8:8 + n])
last = max((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][1])
header[last]["data_offsets"] = [o + 1000 for o in header[last]["data_offsets"]]
text = json.dumps(header).encode()
open("lying.safetensors", "wb").write(struct.pack("<Q", len(text)) + text + good[8 + n:])
open("notes.safetensors", "w").write("just some text")
save_file(sd, "dup.safetensors", metadata={"model": "net", "classes": json.dumps(["a"] * 10)})
import os
class Runs:  # a pickle that would run a command
    def __reduce__(self):
        return (os.system, ("touch pwned",))
torch.save({**sd, "extra": Runs()}, "runs_code.pt")
PY
expect 1 "names.pt does not fit a net model: missing: fc3.bias, fc3.weight; unexpected: head.bias, head.weight" -- \
  "$PREDICT" --weights names.pt --model net "${files[0]}"
expect 1 "wrong shape: conv1.weight is \[6, 3, 3, 3\] in the file, \[6, 3, 5, 5\] in the model" -- \
  "$PREDICT" --weights shapes.pt --model net "${files[0]}"
expect 1 "list.pt: it holds a list, not a dict of tensors" -- "$PREDICT" --weights list.pt --model net "${files[0]}"
expect 1 "torchvision ResNet-18 for ImageNet" -- "$PREDICT" --weights tv_resnet18.pth --model resnet18 "${files[0]}"
expect 1 "header length [0-9]+ is larger than the [0-9]+ bytes that follow" -- \
  "$PREDICT" --weights trunc_header.safetensors "${files[0]}"
expect 1 "is larger than the" -- "$PREDICT" --weights long_header.safetensors "${files[0]}"
expect 1 "entry '[a-z0-9.]+' lies at bytes \[[0-9]+, [0-9]+\) but the data area holds" -- "$PREDICT" --weights lying.safetensors "${files[0]}"
expect 1 "notes.safetensors: (header length|.*too short|.*exceeds)" -- "$PREDICT" --weights notes.safetensors "${files[0]}"
expect 2 "does not say which model.*--model" -- "$PREDICT" --weights py_sd.pt "${files[0]}"
expect 1 "metadata 'classes' names 'a' twice: each class needs a name of its own" -- \
  "$PREDICT" --weights dup.safetensors "${files[0]}"
"$PY" -c "import cifar_models as cm; cm.load('dup.safetensors')" >dup.log 2>&1 &&
  fail "cifar_models.load read classes named alike"
grep -q "each non-empty and each once" dup.log || { cat dup.log; fail "cifar_models.load: no reason"; }
pass "classes named alike in a file's metadata: refused by cifar-predict and cifar_models.load"
expect 1 "runs_code.pt: it holds a Python object of type posix.system, which a weights file does not need" -- "$PREDICT" --weights runs_code.pt --model net "${files[0]}"
"$PY" -c "import cifar_models as cm; cm.load('runs_code.pt', model='net')" >code.log 2>&1 &&
  fail "cifar_models.load read a pickle that runs code"
grep -q "runs_code.pt holds Python objects, not only tensors (posix.system): it is not loaded" code.log &&
  ! grep -q "weights_only. set to .False" code.log || { cat code.log; fail "cifar_models.load: no reason, or torch's advice to unpickle it"; }
[[ ! -e pwned ]] || fail "a pickle ran its command"
pass "a pickle that would run code: refused by cifar-predict and cifar_models.load, which does not advise weights_only=False"
expect 2 "unknown extension '.onnx'" -- "$PREDICT" --weights x.onnx --model net "${files[0]}"
expect 2 "give --checkpoint FILE .* or --weights FILE" -- "$PREDICT" "${files[0]}"

# cifar-export's bad input.
expect 1 "does not exist" -- "$EXPORT" --checkpoint nothing.pt --out a.safetensors
expect 1 "not a cifar-train checkpoint" -- "$EXPORT" --checkpoint py_sd.pt --out a.safetensors
