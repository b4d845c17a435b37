#!/usr/bin/env bash
# Nothing that changes the answer leaves silently (issue 47, class 3): a
# folder model trained at 40 px, centre-cropped at 0.6 and judged with
# test-time augmentation, exported to .pt (the tensors only) scored 10/30
# instead of 20/30 under cifar-eval --weights, with no word anywhere.
# cifar-export names, in one warning, what the format loses and the options
# that say it back (.safetensors: the TTA level only); cifar-eval,
# cifar-predict and cifar-export take --image-size, --crop-mode, --crop-pct
# for weights files, and with the options the export warning names, the .pt
# file gives the checkpoint's answers in every entry point. A weights file
# that records nothing says what is assumed; a value given over one the file
# records is used with a warning naming both (as --mean, --std override the
# metadata); with a checkpoint the options are refused, as --model is.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"

python3 - <<'PY'
import os, random, struct, zlib
rng = random.Random(5)
def png(path, w, h, blob):
    rows = []
    for y in range(h):
        row = bytearray(b"\0")
        for x in range(w):
            inside = abs(x - w / 2) < w / 5 and abs(y - h / 2) < h / 5
            base = blob if inside else (90, 90, 90)
            row += bytes(min(255, max(0, c + rng.randrange(-60, 61))) for c in base)
        rows.append(bytes(row))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))
for split in ("train", "val"):
    for name, blob in (("red", (200, 60, 60)), ("blue", (60, 60, 200)), ("green", (60, 200, 60))):
        os.makedirs(f"photos/{split}/{name}", exist_ok=True)
        for i in range(12 if split == "train" else 5):
            w, h = rng.randrange(40, 80), rng.randrange(40, 80)
            png(f"photos/{split}/{name}/{i:02d}.png", w, h, blob)
PY

common=(--data photos --model airbench94 --image-size 40 --crop-pct 0.6 --device cpu --threads 1
        --batch-size 12 --lr 0.05 --epochs 2)
"$TRAIN" "${common[@]}" --tta 1 --checkpoint m.ckpt --run-dir run1 >/dev/null 2>train.err ||
  { cat train.err; fail "training at 40 px, crop-pct 0.6 failed"; }
"$TRAIN" "${common[@]}" --tta 0 --checkpoint m0.ckpt --run-dir run0 >/dev/null 2>train0.err ||
  { cat train0.err; fail "training without TTA failed"; }

# --- cifar-export: one warning naming what the format loses ------------------------
"$EXPORT" --checkpoint m.ckpt --out m.pt 2>export.err || { cat export.err; fail "export to .pt failed"; }
[[ $(grep -c 'warn' export.err) -eq 1 ]] || { cat export.err; fail "export to .pt: not one warning"; }
want="--model airbench94 --mean [0-9.,e-]+ --std [0-9.,e-]+ --image-size 40 --crop-mode center --crop-pct 0.6 --tta 1"
grep -Eq -- "m.pt holds the weights only.*need $want to give its answers.*export to m.safetensors" export.err ||
  { cat export.err; fail "the .pt export's warning does not name what is lost and the format that keeps it"; }
flags=$(grep -o -- 'need --model.* to give' export.err | sed 's/^need //; s/ to give$//')
"$EXPORT" --checkpoint m.ckpt --out m.safetensors 2>export2.err || { cat export2.err; fail "export to .safetensors failed"; }
[[ $(grep -c 'warn' export2.err) -eq 1 ]] && grep -q "m.safetensors does not keep the test-time augmentation level (1).*--tta 1" export2.err ||
  { cat export2.err; fail "the .safetensors export does not name the TTA level it loses"; }
"$EXPORT" --checkpoint m0.ckpt --out m0.safetensors 2>export3.err || fail "export without TTA failed"
! grep -q warn export3.err || { cat export3.err; fail "a .safetensors export that loses nothing warned"; }
"$EXPORT" --checkpoint m0.ckpt --out m0.pt 2>export4.err || fail "export of m0 to .pt failed"
grep -q -- "need --model airbench94 .* --image-size 40 --crop-mode center --crop-pct 0.6 to give" export4.err ||
  { cat export4.err; fail "the .pt export of a model without TTA does not name the preparation"; }
pass "cifar-export names what .pt and .safetensors lose, once, with the options that say it back"

# --- every entry point gives the checkpoint's answers with those options -----------
same_json() {  # A B WHAT: two tools' JSON outputs hold the same numbers
  python3 - "$1" "$2" <<'PY' || fail "$3: other answers than the checkpoint's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# cifar-predict: each image's probabilities (a .pt file loses the class names, as warned)
strip = lambda j: [[t["probability"] for t in r["top_k"]] for r in j] if isinstance(j, list) else \
    {k: v for k, v in j.items() if k in ("accuracy", "per_class", "confusion", "correct", "total")}
assert strip(a) == strip(b), (strip(a), strip(b))
PY
}
images=(photos/val/*/0[0-2].png)
"$EVAL" --checkpoint m.ckpt --data photos --device cpu --threads 1 --json >ckpt.json 2>/dev/null || fail "eval of the checkpoint failed"
"$PREDICT" --checkpoint m.ckpt --json "${images[@]}" >ckpt_pred.json 2>/dev/null || fail "predict with the checkpoint failed"
# shellcheck disable=SC2086
for file in m.pt m.safetensors; do
  extra=$([[ $file == m.pt ]] && echo "$flags" || echo "--tta 1")
  "$EVAL" --weights $file $extra --data photos --device cpu --threads 1 --json >e.json 2>e.err ||
    { cat e.err; fail "cifar-eval --weights $file $extra failed"; }
  ! grep -q warn e.err || { cat e.err; fail "cifar-eval --weights $file $extra warned"; }
  grep -q "images: 40 px, center 0.6" e.err || { cat e.err; fail "cifar-eval does not log the images' preparation"; }
  same_json ckpt.json e.json "cifar-eval --weights $file $extra"
  "$PREDICT" --weights $file $extra --json "${images[@]}" >p.json 2>p.err || { cat p.err; fail "cifar-predict --weights $file failed"; }
  ! grep -q warn p.err || { cat p.err; fail "cifar-predict --weights $file $extra warned"; }
  same_json ckpt_pred.json p.json "cifar-predict --weights $file $extra"
done
# cifar-export takes them too (not --tta, which no weights file keeps): the .pt
# and its options make a .safetensors that needs no other option but --tta.
"$EXPORT" --weights m.pt ${flags% --tta 1} --out back.safetensors 2>back.err || { cat back.err; fail "export of m.pt with its options failed"; }
"$PREDICT" --weights back.safetensors --tta 1 --json "${images[@]}" >b.json 2>/dev/null ||
  fail "predict with back.safetensors failed"
same_json ckpt_pred.json b.json "cifar-export --weights m.pt ${flags% --tta 1}, then cifar-predict --tta 1"
pass "with the options the warning names, cifar-eval, cifar-predict and cifar-export give the checkpoint's answers"

# --- what is assumed, what is overridden, what is refused ---------------------------
for tool in "$EVAL --data photos --device cpu" "$PREDICT ${images[0]}"; do
  name=$(basename "${tool%% *}")
  # shellcheck disable=SC2086
  out=$($tool --weights m.pt --model airbench94 2>&1) || { echo "$out"; fail "$name --weights m.pt alone failed"; }
  grep -q "warn.*m.pt does not say the image size and preparation.*--image-size 32, --crop-mode squash, --crop-pct 1" <<<"$out" ||
    { echo "$out"; fail "$name: a .pt file's assumed preparation is not said"; }
  # shellcheck disable=SC2086
  out=$($tool --weights m.safetensors --image-size 32 --crop-mode squash 2>&1) || { echo "$out"; fail "$name: an override failed"; }
  [[ $(grep -c warn <<<"$out") -eq 1 ]] &&
    grep -q "warn.*m.safetensors: --image-size 32 (the file records 40), --crop-mode squash (the file records center) given" <<<"$out" ||
    { echo "$out"; fail "$name: values given over the file's are not named once"; }
  # shellcheck disable=SC2086
  out=$($tool --weights m.safetensors --image-size 40 --crop-mode center --crop-pct 0.6 --tta 1 2>&1)
  ! grep -q warn <<<"$out" || { echo "$out"; fail "$name: values equal to the file's warned"; }
  # shellcheck disable=SC2086
  expect 2 "--image-size, --crop-pct go with --weights; a checkpoint carries its own .*image preparation" -- \
    $tool --checkpoint m.ckpt --image-size 40 --crop-pct 0.6
  # shellcheck disable=SC2086
  expect 2 "--crop-pct must be 0 \(the weights file's\) or from 0.25 to 1" -- $tool --weights m.safetensors --crop-pct 0.1
done
expect 2 "--image-size 40: net takes images of 32 px only" -- "$PREDICT" --weights m.pt --model net --image-size 40 "${images[0]}"
pass "assumed preparation said, overrides named once, refused with a checkpoint, checked against the model"
