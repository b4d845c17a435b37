#!/usr/bin/env bash
# --image-size: the image side is data. A folder of 32x32 PNGs trained at
# 64 px keeps 64 in the checkpoint and the weights metadata; cifar-eval of the
# checkpoint reads the folder at 64 px and gives the training run's final
# figures; cifar-predict prepares a file at 64 px as Python's
# cifar_models.to_input does; the image cache serves another size; the net
# (32 px only), sizes out of range and a resume at another size are refused
# before anything is written.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
EXPORT=$BIN/cifar-export

write_folder pets cat,dog train,test 16
train64=(--data pets --model resnet18 --image-size 64 --device cpu --threads 2 --batch-size 16
  --lr 0.05 --checkpoint p64.pt --run-dir run)
"$TRAIN" "${train64[@]}" --epochs 1 >train.out 2>train.err ||
  { cat train.err; fail "training at --image-size 64 failed"; }
python3 - p64.pt <<'PY' || fail "the checkpoint does not record the 64 px images"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
header = json.loads(raw[16:16 + struct.unpack("<I", raw[12:16])[0]])
assert header["image"] == {"channels": 3, "side": 64, "crop_mode": "center", "crop_pct": 0.875}, \
    header["image"]
PY
grep -q '^image-size = 64$' run/config.toml || { cat run/config.toml; fail "config.toml lacks image-size"; }
grep -Eq "32 images decoded and cached in .*train\.bin \([0-9.]+ MB\)" train.err ||
  { grep decoded train.err; fail "the log does not say the cache's size on disk"; }
pass "cifar-train --image-size 64: the checkpoint records 3 x 64 x 64"

"$EVAL" --checkpoint p64.pt --data pets --device cpu --threads 2 >eval.out 2>eval.err ||
  { cat eval.err; fail "cifar-eval of the 64 px checkpoint failed"; }
grep '^Accuracy' train.out >train.acc
grep '^Accuracy' eval.out >eval.acc
[[ -s train.acc ]] && diff train.acc eval.acc || fail "cifar-eval's figures differ from the run's final ones"
pass "cifar-eval reads the folder at the checkpoint's 64 px: the run's own figures ($(head -1 eval.acc))"

"$EXPORT" --checkpoint p64.pt --out p64.safetensors 2>/dev/null || fail "cifar-export failed"
"$PREDICT" --checkpoint p64.pt --json pets/test/cat/000.png pets/test/dog/001.png >pred.json 2>pred.err ||
  { cat pred.err; fail "cifar-predict of the 64 px checkpoint failed"; }
if "$PY" -c "import safetensors, PIL" 2>/dev/null; then
  "$PY" - p64.safetensors pred.json <<'PY' || fail "Python's 64 px inputs give other probabilities"
import json, sys, torch, PIL.Image as Image
import cifar_models as cm
model, info = cm.load(sys.argv[1])
assert (info["image_size"], info["crop_mode"], info["crop_pct"]) == (64, "center", 0.875), info
for p in json.load(open(sys.argv[2])):
    rgb = torch.frombuffer(bytearray(Image.open(p["file"]).convert("RGB").tobytes()), dtype=torch.uint8)
    x = cm.to_input(rgb.view(32, 32, 3).permute(2, 0, 1), info["image_size"], info["mean"], info["std"],
                    info["crop_mode"], info["crop_pct"])
    with torch.no_grad():
        prob = torch.softmax(model(x.unsqueeze(0)), 1)[0]
    c = int(prob.argmax())
    assert info["classes"][c] == p["class"] and abs(float(prob[c]) - p["probability"]) < 1e-4, (p, prob)
PY
  pass "cifar-predict and Python (metadata image_size 64, to_input) agree"
  if "$PY" -c "import onnx" 2>/dev/null; then
    "$PY" "$SRC/scripts/python/export_onnx.py" p64.safetensors p64.onnx >onnx.out 2>&1 ||
      { tail -3 onnx.out; fail "export_onnx.py failed at 64 px"; }
    "$PY" - p64.onnx <<'PY' || fail "the ONNX graph does not take 64 px images"
import onnx, sys
m = onnx.load(sys.argv[1])
dims = [d.dim_value or d.dim_param for d in m.graph.input[0].type.tensor_type.shape.dim]
meta = {p.key: p.value for p in m.metadata_props}
assert dims[1:] == [3, 64, 64] and meta["image_size"] == "64", (dims, meta)
assert (meta["crop_mode"], meta["crop_pct"]) == ("center", "0.875"), meta
PY
    pass "export_onnx.py: the graph takes (N, 3, 64, 64), its metadata says image_size 64"
  fi
else
  echo "note: $PY lacks safetensors or PIL: the Python comparison is not made"
fi

"$TRAIN" --data pets --model resnet18 --image-size 48 --device cpu --threads 2 --epochs 1 --batch-size 16 \
  --checkpoint p48.pt --run-dir run48 >/dev/null 2>again.err || { cat again.err; fail "training at 48 px failed"; }
grep -q "pets/train: .* images read from the cache .*nothing decoded" again.err ||
  { cat again.err; fail "the 64 px run's cache did not serve 48 px"; }
! grep -q "decoding" again.err || { cat again.err; fail "48 px decoded the photos again"; }
grep -qx "image-size = 48" run48/config.toml || fail "the 48 px run is not at 48 px"
pass "the image cache serves another size: 48 px after 64 decodes nothing"

before=$(ls -A)
expect 2 "--model net gives net, which takes 32x32 images only .*not 64x64: drop --image-size, or train a model that takes any size \(resnet18, airbench94, efficientnet_lite0\)" -- \
  "$TRAIN" --data pets --model net --image-size 64 --device cpu --epochs 1 --run-dir x --checkpoint x.pt
expect 2 "--image-size must be 0 \(the data set's own size\) or from 8 to 1024 px, got 5" -- \
  "$TRAIN" --data pets --model resnet18 --image-size 5 --device cpu --run-dir x --checkpoint x.pt
expect 2 "--model airbench94 gives airbench94, which takes images of 9 px a side or more .*pass --image-size 9 or more" -- \
  "$TRAIN" --data pets --model airbench94 --image-size 8 --device cpu --run-dir x --checkpoint x.pt
expect 2 "image-size.*2000" -- "$TRAIN" --data pets --image-size 2000 --device cpu --run-dir x --checkpoint x.pt
expect 2 "image-size.*whole number" -- "$TRAIN" --data pets --image-size 6.5 --device cpu --run-dir x --checkpoint x.pt
expect 2 "--resume p64.pt was trained on images of 64 px a side, not the 32 --image-size asks for: pass --image-size 64, or drop it" -- \
  "$TRAIN" "${train64[@]}" --image-size 32 --epochs 2 --resume p64.pt
# A step that cannot fit the free memory (ResNet-18's 32 px stem holds GBs an
# image at 1024 px): refused before its first step, not killed by the system.
expect 1 "a training step at batch 32 and 1024 px would hold about [0-9.]+ GiB \([0-9.]+ GiB an image\), more than the [0-9.]+ [GM]iB free for this process: lower (--batch-size to [0-9]+ or less, or --image-size|--image-size \(not one image fits\))" -- \
  bash -c 'ulimit -v 8000000 && exec "$@"' big "$TRAIN" --data pets --model resnet18 --image-size 1024 --batch-size 32 --device cpu --epochs 1 --run-dir x --checkpoint x.pt
[[ "$(ls -A)" == "$before" ]] || fail "a refused run wrote files: $(ls -A)"
pass "the net, sizes out of range, a resume at another size and a step too large for memory are refused before anything is written"

args=(--data pets --model resnet18 --device cpu --threads 2 --batch-size 16 --lr 0.05 --checkpoint p64.pt --run-dir run)
"$TRAIN" "${args[@]}" --epochs 2 --resume p64.pt >resume.out 2>resume.err ||
  { cat resume.err; fail "resuming the 64 px run without --image-size failed"; }
python3 - p64.pt <<'PY' || fail "the resumed checkpoint lost its 64 px"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
header = json.loads(raw[16:16 + struct.unpack("<I", raw[12:16])[0]])
assert header["image"]["side"] == 64 and header["epoch"] == 2, header
PY
pass "a resume without --image-size goes on at the run's 64 px"

# --init-weights of the 64 px run trains at 64 px unless told (the size its
# file records, as --pretrained's entry gives its own); --image-size wins.
"$TRAIN" --data pets --init-weights run/model.safetensors --device cpu --threads 2 --epochs 1 \
  --batch-size 16 --run-dir run-init --checkpoint init.pt >/dev/null 2>init.err ||
  { cat init.err; fail "training from the 64 px weights failed"; }
grep -q "images: 64 px, as --init-weights run/model.safetensors takes them" init.err ||
  { grep "images:" init.err; fail "--init-weights did not take the file's 64 px"; }
grep -q '^image-size = 64$' run-init/config.toml || fail "the run from the 64 px weights did not record 64 px"
"$TRAIN" --data pets --init-weights run/model.safetensors --image-size 48 --device cpu --threads 2 \
  --epochs 1 --batch-size 16 --run-dir run-init48 --checkpoint init48.pt >/dev/null 2>&1 ||
  fail "training from the 64 px weights at --image-size 48 failed"
grep -q '^image-size = 48$' run-init48/config.toml || fail "--image-size 48 did not win over the file's 64"
pass "--init-weights takes the file's image size, --image-size another"
