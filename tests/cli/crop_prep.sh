#!/usr/bin/env bash
# An image folder of photos of many shapes is prepared as torchvision
# prepares them (issue 39 item 3): evaluation images centre-cropped (the
# shorter side to floor(N / 0.875), the centre N x N), training images kept
# whole at 2N for random resized crops. The checkpoint and the weights
# metadata carry the preparation; cifar-eval of the checkpoint on val/ gives
# the run's final figures; cifar-predict prepares a file as Python's
# cifar_models.to_input does with the metadata's crop_mode and crop_pct (a
# photo larger than the kept tier too); another preparation is served from
# the cache; --val-split holds out whole images and
# judges them centre-cropped; bad values are refused before anything is
# written; a resume keeps the preparation.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)

# Two classes told apart by a centred colour blob on noise, in PNGs of many
# sizes and aspect ratios (3:4 to 2:1, 30 to 90 px a side).
python3 - <<'PY'
import os, random, struct, zlib
rng = random.Random(3)
def png(path, w, h, blob):
    rows = []
    for y in range(h):
        row = bytearray(b"\0")
        for x in range(w):
            inside = abs(x - w / 2) < w / 4 and abs(y - h / 2) < h / 4
            base = blob if inside else (90, 90, 90)
            row += bytes(min(255, max(0, c + rng.randrange(-50, 51))) for c in base)
        rows.append(bytes(row))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))
for root, splits in (("shapes", ("train", "val")), ("held", ("train", "test"))):
    for split in splits:
        for name, blob in (("red", (220, 40, 40)), ("blue", (40, 40, 220))):
            os.makedirs(f"{root}/{split}/{name}", exist_ok=True)
            for i in range(16 if split == "train" else 6):
                side = rng.randrange(30, 61)
                ratio = rng.choice((0.75, 1.0, 1.5, 2.0))
                w, h = (int(side * ratio), side) if rng.random() < 0.5 else (side, int(side * ratio))
                png(f"{root}/{split}/{name}/{i:03d}.png", w, h, blob)
PY

common=(--model airbench94 --image-size 24 --device cpu --threads 2 --batch-size 8 --lr 0.05 --augment)
"$TRAIN" --data shapes "${common[@]}" --epochs 2 --checkpoint c.pt --run-dir run >train.out 2>train.err ||
  { cat train.err; fail "training on a folder of many shapes failed"; }
grep -q "images: 24 px, prepared as center 0.875 (--crop-mode, --crop-pct); training images: random resized crops of 0.08 to 1 of the area, from whole images kept at 48 px" train.err ||
  { grep images: train.err; fail "the log does not say how images are prepared"; }
python3 - c.pt <<'PY' || fail "the checkpoint does not record the preparation"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
header = json.loads(raw[16:16 + struct.unpack("<I", raw[12:16])[0]])
assert header["image"] == {"channels": 3, "side": 24, "crop_mode": "center", "crop_pct": 0.875}, header["image"]
PY
pass "trained with resized crops of whole images; the checkpoint records center 0.875 at 24 px"

"$EVAL" --checkpoint c.pt --data shapes/val --device cpu --threads 2 >eval.out 2>eval.err ||
  { cat eval.err; fail "cifar-eval on val/ failed"; }
run_acc=$(grep -m1 '^Accuracy of the network' train.out | grep -Eo '[0-9.]+ %')
eval_acc=$(grep -m1 '^Accuracy of the network' eval.out | grep -Eo '[0-9.]+ %')
[[ -n $run_acc && $run_acc == "$eval_acc" ]] ||
  { cat train.out eval.out; fail "cifar-eval on val/ gives $eval_acc, the run $run_acc"; }
pass "cifar-eval on val/ (centre-cropped as in training) gives the run's $run_acc"

"$BIN/cifar-export" --checkpoint c.pt --out c.safetensors 2>/dev/null || fail "cifar-export failed"
files=(shapes/val/red/000.png shapes/val/blue/001.png shapes/val/red/002.png)
if "$PY" -c "import safetensors, PIL" 2>/dev/null; then
  # A photo larger than the kept tier (256 px): both sides reduce it first.
  "$PY" -c 'import PIL.Image as I; I.open("shapes/val/red/000.png").convert("RGB").resize((700, 530), I.BICUBIC).save("big.png")' ||
    fail "could not write big.png"
  files+=(big.png)
fi
"$PREDICT" --checkpoint c.pt --json "${files[@]}" >pred.json 2>pred.err || { cat pred.err; fail "predict failed"; }
if "$PY" -c "import safetensors, PIL" 2>/dev/null; then
  "$PY" - c.safetensors pred.json <<'PY' || fail "Python's prepared inputs give other probabilities"
import json, sys, torch, PIL.Image as Image
import cifar_models as cm
model, info = cm.load(sys.argv[1])
assert (info["image_size"], info["crop_mode"], info["crop_pct"]) == (24, "center", 0.875), info
for p in json.load(open(sys.argv[2])):
    im = Image.open(p["file"]).convert("RGB")
    rgb = torch.frombuffer(bytearray(im.tobytes()), dtype=torch.uint8).view(im.height, im.width, 3)
    x = cm.to_input(rgb.permute(2, 0, 1), info["image_size"], info["mean"], info["std"],
                    info["crop_mode"], info["crop_pct"])
    with torch.no_grad():
        prob = torch.softmax(model(x.unsqueeze(0)), 1)[0]
    c = int(prob.argmax())
    assert info["classes"][c] == p["class"] and abs(float(prob[c]) - p["probability"]) < 1e-4, (p, prob)
PY
  pass "cifar-predict and Python (metadata crop_mode center, crop_pct 0.875, to_input) agree, on a 700 x 530 photo too"
else
  echo "note: $PY lacks safetensors or PIL: the Python comparison is not made"
fi

"$TRAIN" --data shapes "${common[@]}" --epochs 1 --crop-pct 0.9 --checkpoint c9.pt --run-dir run9 \
  >/dev/null 2>again.err || { cat again.err; fail "training at --crop-pct 0.9 failed"; }
grep -q "shapes/val: 12 images read from the cache .*nothing decoded" again.err ||
  { cat again.err; fail "val/'s cache did not serve --crop-pct 0.9"; }
grep -q "shapes/train: 32 images read from the cache" again.err ||
  { cat again.err; fail "the whole training images' cache was not reused"; }
! grep -q "decoding" again.err || { cat again.err; fail "--crop-pct 0.9 decoded photos again"; }
pass "the cache keeps the photos, not a preparation: --crop-pct 0.9 decodes nothing again"

"$TRAIN" --data held "${common[@]}" --epochs 1 --val-split 6 --checkpoint h.pt --run-dir runh \
  >held.out 2>held.err || { cat held.err; fail "--val-split of whole images failed"; }
grep -Eq "epoch 1/1: .* val [0-9.]+ [0-9.]+%" held.err || { cat held.err; fail "no validation figure"; }
"$TRAIN" --data held "${common[@]}" --epochs 1 --crop-scale 0 --checkpoint h0.pt --run-dir runh0 \
  >/dev/null 2>plain.err || { cat plain.err; fail "--crop-scale 0 failed"; }
grep -q "images: 24 px, prepared as center 0.875 (--crop-mode, --crop-pct)$" plain.err ||
  { grep images: plain.err; fail "--crop-scale 0 still crops whole images"; }
pass "--val-split holds out whole images, judged centre-cropped; --crop-scale 0 translates prepared images"

before=$(ls -A)
expect 2 "--crop-pct must be 0 \(the data set's\) or from 0.25 to 1" -- \
  "$TRAIN" --data shapes --crop-pct 0.1 --device cpu --run-dir x --checkpoint x.pt
expect 2 "unknown crop mode 'fit': use center" -- \
  "$TRAIN" --data shapes --crop-mode fit --device cpu --run-dir x --checkpoint x.pt
expect 2 "--crop-scale" -- "$TRAIN" --data shapes --crop-scale 1.5 --device cpu --run-dir x --checkpoint x.pt
[[ $(ls -A) == "$before" ]] || fail "a refused run wrote files: $(comm -13 <(echo "$before") <(ls -A))"
pass "bad --crop-pct, --crop-mode, --crop-scale refused before anything is written"

"$TRAIN" --resume c.pt --data shapes --device cpu --threads 2 --epochs 3 --run-dir run >resume.out 2>resume.err ||
  { cat resume.err; fail "resuming without the crop options failed"; }
grep -q "prepared as center 0.875" resume.err || { grep images: resume.err; fail "the resume changed the preparation"; }
# In a folder of its own: run/ now holds that run further on than c.pt, which
# is refused first, before the data is read.
expect 2 "prepared as center 0.875, but the data is prepared as .*--crop-pct 0.875" -- \
  "$TRAIN" --resume c.pt --data shapes --device cpu --epochs 4 --crop-pct 1 --run-dir run-again
pass "a resume keeps the checkpoint's preparation, and refuses another"
