#!/usr/bin/env bash
# Weights files that cannot be right are refused at load, naming the file and
# what is wrong (issue 22): pickles nested past any state dict, or inflating
# past what a state dict of the model can hold (never a crash, never gigabytes
# read into memory); NaN, infinite, integer or boolean weights; metadata that
# cannot be used (a mean of 1e308, a class list that does not fit). And what
# was wrongly refused or undefined: a checkpoint as --init-weights, a PNG
# with transparency (composited onto white, the same on every run). A
# weights file given as --checkpoint is named as one, with its option.
source "$(dirname "$0")/lib/common.bash"
PREDICT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-predict
PY=python3

# A 4x4 PNG to predict on.
"$PY" - img.png <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
rows = b"".join(b"\0" + bytes([200, 50, 50] * 4) for _ in range(4))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) +
                              chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY

# peak_mb COMMAND...: runs it, prints its exit status and peak memory (MB).
peak_mb() {
  "$PY" -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$@"
}

# --- the unpickler's limits ------------------------------------------------------
for kind in deep inflate stride0 bigpickle; do
  "$PY" "$SRC/tests/cli/lib/hostile_pt.py" "$kind" "$kind.pt" || fail "writing $kind.pt"
done
# 400 KB of lists nested 200,000 deep: was SIGSEGV (recursion when freed).
expect 1 "weights file deep.pt: the pickle nests containers more than 32 deep" -- \
  "$PREDICT" --weights deep.pt --model net img.png
# 1 MB that inflates to a 1 GiB storage, a tensor of stride 0 seen as 1 GiB,
# and a data.pkl that inflates to 1 GiB: were read into memory (2.4 GB peak).
expect 1 "weights file inflate.pt: its tensors need more memory than a weights file for this model can \(the storage data/0 would take 1073741824 bytes.*state dict of [0-9]+ values, and 16 MiB. weights of a larger model\? pass its --model \(net, " -- \
  "$PREDICT" --weights inflate.pt --model net img.png
expect 1 "weights file stride0.pt: its tensors need more memory .*a tensor of size \[268435456\]" -- \
  "$PREDICT" --weights stride0.pt --model net img.png
expect 1 "weights file bigpickle.pt: its data.pkl inflates to 1073741836 bytes, more than the 67108864" -- \
  "$PREDICT" --weights bigpickle.pt --model net img.png
for kind in inflate stride0 bigpickle; do
  read -r rc mb < <(peak_mb "$PREDICT" --weights "$kind.pt" --model net img.png)
  echo "$kind.pt: exit $rc, peak memory $mb MB"
  [[ $rc -eq 1 && $mb -lt 1000 ]] || fail "$kind.pt: exit $rc, peak $mb MB (expected 1, under 1000 MB; the old reader took 2.4 GB)"
done
# The same limits for cifar-eval --weights and --init-weights.
make_fake_data data
expect 1 "weights file deep.pt: the pickle nests" -- "$EVAL" --weights deep.pt --model net --data data --device cpu
expect 1 "weights file inflate.pt: its tensors need more memory" -- \
  "$TRAIN" --init-weights inflate.pt --model net --data data --device cpu --epochs 1 --train-limit 100 -q

# --- weights that cannot be right -------------------------------------------------
ok=(--data data --device cpu --train-limit 100 --epochs 1 --batch-size 50 -q)
"$TRAIN" "${ok[@]}" --run-dir run --checkpoint ck.pt >train.log 2>&1 || { cat train.log; fail "training"; }
good=run/model.safetensors
[[ -f $good ]] || fail "no $good"
edit() { "$PY" "$SRC/tests/cli/lib/safetensors_edit.py" "$good" "$@" || fail "editing: $*"; }
edit nan.safetensors nan:fc3.weight inf:conv1.bias
edit int.safetensors dtype:fc1.weight=I32
edit bool.safetensors bool:fc2.bias
nan_msg="weights file nan.safetensors: tensors hold NaN or infinite values: conv1.bias \(1 of 6\), fc3.weight \(1 of 840\)"
# Was: cifar-predict "ship nan%" (exit 0), cifar-eval 10%, training "lower the learning rate".
expect 1 "$nan_msg" -- "$PREDICT" --weights nan.safetensors img.png
# A weights file given as a checkpoint: the message names what it is and its option.
expect 1 "not a cifar-train checkpoint \(no CIFARTRN magic at the start\): it is a safetensors file, weights alone \(a state_dict\): give it as --weights" -- \
  "$PREDICT" --checkpoint "$good" img.png
expect 1 "not a cifar-train checkpoint \(no CIFARTRN magic at the start\): it is a safetensors file, weights alone \(a state_dict\): give it as --init-weights" -- \
  "$TRAIN" "${ok[@]}" --resume "$good" --run-dir run-resume-w --checkpoint rw.pt
# torch.save writes a ZIP archive (archive/data.pkl, ...): its first bytes are the sign.
"$PY" -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1], 'w').writestr('archive/data.pkl', b'x')" saved.pt ||
  fail "could not write a ZIP archive"
expect 1 "it is a ZIP archive, as Python's torch.save writes: if it holds weights alone \(a state_dict\), give it as --weights" -- \
  "$EVAL" --checkpoint saved.pt --data data --device cpu
# torch.save's legacy format is named too; a TorchScript archive is not told
# to be given as weights (no tool reads it).
"$PY" - <<'PY' || fail "could not write the legacy and TorchScript files"
import zipfile
# The legacy format's start: protocol 2, then torch.save's magic number.
open("legacy.pt", "wb").write(b"\x80\x02\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little") + b".")
with zipfile.ZipFile("scripted.pt", "w") as z:  # torch.jit.save's entries
    for name in ("scripted/data.pkl", "scripted/constants.pkl", "scripted/code/__torch__.py"):
        z.writestr(name, b"x")
PY
expect 1 "it is torch.save's legacy format \(PyTorch before 1.6\): if it holds weights alone \(a state_dict\), give it as --weights" -- \
  "$EVAL" --checkpoint legacy.pt --data data --device cpu
expect 1 "it is a TorchScript archive \(torch.jit.save\), which no tool reads; in Python, torch.save\(model.state_dict\(\), path\) writes weights to give as --init-weights" -- \
  "$TRAIN" "${ok[@]}" --resume scripted.pt --run-dir run-scripted --checkpoint rs.pt
expect 1 "$nan_msg" -- "$EVAL" --weights nan.safetensors --data data --device cpu
expect 1 "$nan_msg" -- "$TRAIN" "${ok[@]}" --init-weights nan.safetensors --run-dir run-nan --checkpoint nan.pt
expect 1 "weights file int.safetensors: tensors that must be floating point are not: fc1.weight \(int32\)" -- \
  "$PREDICT" --weights int.safetensors img.png
expect 1 "weights file bool.safetensors: tensors that must be floating point are not: fc2.bias \(bool\)" -- \
  "$PREDICT" --weights bool.safetensors img.png

# --- metadata that cannot be used -------------------------------------------------
edit mean.safetensors "meta:mean=[1e308, 0.5, 0.5]"
edit tiny.safetensors "meta:std=[1e-320, 0.25, 0.25]"
edit wide.safetensors "meta:std=[63.0, 62.1, 66.7]"
edit classes3.safetensors 'meta:classes=["a", "b", "c"]'
edit three.safetensors 'meta:classes=["a", "b", "c"]' rows:3
"$PY" -c 'import json; print(json.dumps([str(i) for i in range(200000)]))' >many.json
edit many.safetensors "meta:classes=@many.json"
# Was: "value cannot be converted to type float without overflow", "-nan%".
expect 1 "weights file mean.safetensors: metadata 'mean' is '\[1e308, 0.5, 0.5\]': every mean must be in \[0, 1\]" -- \
  "$PREDICT" --weights mean.safetensors img.png
expect 1 "weights file tiny.safetensors: metadata 'std' is .*every std must be in \[0.001, 1\].*not 1e-320" -- \
  "$PREDICT" --weights tiny.safetensors img.png
expect 1 "weights file wide.safetensors: metadata 'std' .*divide values in 0-255 units by 255" -- \
  "$EVAL" --weights wide.safetensors --data data --device cpu
expect 2 "--mean 125.3,123,113.9: every mean must be in \[0, 1\]" -- \
  "$PREDICT" --weights "$good" --mean 125.3,123,113.9 --std 0.25,0.25,0.25 img.png
# An image size the file's model cannot take (was: "mat1 and mat2 shapes
# cannot be multiplied" from LibTorch, after cifar-eval had prepared the data).
edit side64.safetensors "meta:image_size=64"
for tool in "$PREDICT --weights side64.safetensors img.png" "$EVAL --weights side64.safetensors --data data --device cpu" \
            "$TRAIN ${ok[*]} --init-weights side64.safetensors --run-dir run-side --checkpoint side.pt"; do
  expect 1 "weights file side64.safetensors: the file's metadata records image_size 64, but net takes images of 32 px only: give --image-size" -- $tool
done
# As the hint says, --image-size takes them at a size the model takes.
expect 0 "--image-size 32 \(the file records 64\) given" -- \
  "$TRAIN" "${ok[@]}" --init-weights side64.safetensors --image-size 32 --run-dir run-side32 --checkpoint side32.pt
expect 0 "--image-size 32 \(the file records 64\) given" -- "$PREDICT" --weights side64.safetensors --image-size 32 img.png
# A class list that does not fit the file's output layer, or too long to build.
expect 1 "weights file classes3.safetensors: metadata 'classes' lists 3 names, but the model in it has 10 outputs \(fc3.(weight|bias) is \[10" -- \
  "$PREDICT" --weights classes3.safetensors img.png
expect 1 "weights file many.safetensors: metadata 'classes' lists 200000 names, more than the 100000" -- \
  "$PREDICT" --weights many.safetensors img.png
# A consistent 3-class model predicts, but is not evaluated on CIFAR-10,
# whose classes differ (was: "Target 5 is out of bounds"); training from it
# keeps its body and starts a new 10-class head (train/fine_tune.h).
expect 0 "img.png: [abc] [0-9.]+%" -- "$PREDICT" --weights three.safetensors img.png
expect 1 "weights file three.safetensors was trained on 3 classes \(a, b, c\), but data \(cifar10\) holds 10 classes \(airplane" -- \
  "$EVAL" --weights three.safetensors --data data --device cpu
"$TRAIN" "${ok[@]}" --init-weights three.safetensors --run-dir run-three --checkpoint three.pt ||
  fail "training from a 3-class weights file on 10 classes failed"
expect 0 "Accuracy of the network on the [0-9]+ test images" -- "$EVAL" --checkpoint three.pt --data data --device cpu

# --- a checkpoint as weights --------------------------------------------------------
# Was: "not a torch.save zip file".
expect 0 "init weights: ck.pt \(net\); normalisation: mean \[0.49[0-9]*, [0-9.]+, [0-9.]+\] std \[0.24[0-9]*, [0-9.]+, [0-9.]+\], from the checkpoint.s header" -- \
  "$TRAIN" "${ok[@]:0:${#ok[@]}-1}" --init-weights ck.pt --run-dir run-init --checkpoint init.pt
expect 0 "img.png: " -- "$PREDICT" --weights ck.pt img.png
a=$("$PREDICT" --weights ck.pt --json --top-k 10 img.png 2>/dev/null)
b=$("$PREDICT" --checkpoint ck.pt --json --top-k 10 img.png 2>/dev/null)
[[ -n $a && $a == "$b" ]] || fail "--weights ck.pt predicts '$a', --checkpoint ck.pt '$b'"
pass "a checkpoint as --weights predicts as --checkpoint does"

# --- a PNG with transparency --------------------------------------------------------
# RGBA, half of it fully transparent, a quarter half-transparent; and the same
# composited onto white by hand (RGB). Was: a different answer on every run
# (blended onto an uninitialised buffer).
"$PY" - alpha.png white.png <<'PY'
import struct, sys, zlib, random
def png(path, rows, colour_type):
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\0" + r for r in rows)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, colour_type, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
random.seed(1)
rgba, rgb = [], []
for y in range(32):
    a_row, w_row = bytearray(), bytearray()
    for x in range(32):
        c = [random.randrange(256) for _ in range(3)]
        a = 0 if x < 16 else (128 if y < 16 else 255)
        a_row += bytes(c + [a])
        # sRGB compositing as libpng does it for 8-bit output: in linear light.
        lin = lambda v: (v / 255) / 12.92 if v <= 10 else ((v / 255 + 0.055) / 1.055) ** 2.4
        enc = lambda l: 12.92 * l if l <= 0.0031308 else 1.055 * l ** (1 / 2.4) - 0.055
        w_row += bytes(round(255 * enc(lin(v) * a / 255 + (1 - a / 255))) for v in c)
    rgba.append(bytes(a_row)); rgb.append(bytes(w_row))
png(sys.argv[1], rgba, 6)
png(sys.argv[2], rgb, 2)
PY
runs=()
for i in 1 2 3 4 5; do
  runs+=("$("$PREDICT" --weights "$good" --json --logits alpha.png 2>/dev/null | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["logits"])')")
done
[[ -n ${runs[0]} ]] || fail "cifar-predict alpha.png gave nothing"
for r in "${runs[@]}"; do [[ $r == "${runs[0]}" ]] || fail "alpha.png: logits differ between runs: ${runs[0]} vs $r"; done
"$PY" - "${runs[0]}" "$("$PREDICT" --weights "$good" --json --logits white.png 2>/dev/null | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["logits"])')" <<'PY' ||
import sys
a, b = eval(sys.argv[1]), eval(sys.argv[2])
# Rounding of the hand compositing: within a hundredth of a logit.
assert max(abs(x - y) for x, y in zip(a, b)) < 1e-2, (a, b)
PY
  fail "alpha.png does not predict as the same image composited onto white"
pass "a PNG with transparency is composited onto white, the same on every run"

pass "weights files that cannot be right are refused"
