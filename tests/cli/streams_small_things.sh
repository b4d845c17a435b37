#!/usr/bin/env bash
# Standard streams and small things: a result that cannot be written to
# standard output is an error; with descriptors 0-2 closed, nothing lands in
# the run's files; a CMYK JPEG is classified; a warm-up longer than the run
# is named; class names holding commas or quotes keep confusion.csv's columns;
# NO_COLOR turns colours off; a --test-limit above the data is said.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
PREDICT=$BIN/cifar-predict
make_fake_data data
ok=(--data data --device cpu --train-limit 100 --epochs 1 --batch-size 50)
"$TRAIN" "${ok[@]}" -q --run-dir r0 --checkpoint ck.pt >/dev/null 2>&1 || fail "could not train a checkpoint"

# --- standard output that cannot be written ----------------------------------------
if [[ -w /dev/full ]]; then
  for tool in "$EVAL --checkpoint ck.pt --data data --device cpu -q --json" \
              "$EVAL --checkpoint ck.pt --data data --device cpu -q"; do
    out=$($tool 2>&1 >/dev/full)
    status=$?
    [[ $status -eq 1 ]] || fail "'$tool >/dev/full' exited $status, expected 1: $out"
    grep -q "cannot write the results to standard output: No space left on device" <<<"$out" ||
      fail "'$tool >/dev/full' does not say why: $out"
    pass "$(basename "${tool%% *}") >/dev/full -> 1: cannot write the results to standard output"
  done
  for tool in "$TRAIN --help" "$EVAL --version"; do
    out=$($tool 2>&1 >/dev/full)
    status=$?
    [[ $status -eq 1 ]] || fail "'$tool >/dev/full' exited $status, expected 1: $out"
    grep -q "cannot write the help or version to standard output" <<<"$out" || fail "'$tool >/dev/full' does not say why: $out"
  done
  pass "--help and --version >/dev/full -> 1"
fi

# --- standard output and error closed at start ------------------------------------------
"$TRAIN" "${ok[@]}" --epochs 2 --run-dir r1 --checkpoint r1.pt >&- 2>&-
status=$?
[[ $status -eq 0 ]] || fail "cifar-train with 1 and 2 closed exited $status"
python3 - <<'PY' || fail "metrics.csv is not one header and two rows of numbers: $(head -c 600 r1/metrics.csv)"
import csv
rows = list(csv.reader(open("r1/metrics.csv")))
assert rows[0][0] == "epoch" and len(rows) == 3, rows
assert all(float(cell) >= -1 for row in rows[1:] for cell in row if cell), rows
PY
grep -Eq '^[0-9]+$' r1/.cifar-train.lock || fail "the lock file holds more than a pid: $(head -c 300 r1/.cifar-train.lock)"
pass "with 1 and 2 closed, metrics.csv and the lock file hold only their own lines"

# --- a CMYK JPEG (print files, Adobe's inverted CMYK) ---------------------------------
PY=${CIFAR_TORCH_PYTHON:-python3}
if "$PY" -c "import PIL" 2>/dev/null; then
  "$PY" - <<'PY' || fail "could not write the JPEG files"
from PIL import Image
img = Image.new("RGB", (32, 32))
img.putdata([(8 * x, 8 * y, 255 - 4 * (x + y)) for y in range(32) for x in range(32)])
img.save("rgb.jpg", quality=100)
img.convert("CMYK").save("cmyk.jpg", quality=100)
assert Image.open("cmyk.jpg").mode == "CMYK"
PY
  rgb=$("$PREDICT" --checkpoint ck.pt rgb.jpg -q --json --logits) || fail "rgb.jpg was not classified"
  cmyk=$("$PREDICT" --checkpoint ck.pt cmyk.jpg -q --json --logits 2>&1)
  status=$?
  [[ $status -eq 0 ]] || fail "cmyk.jpg exited $status: $cmyk"
  python3 - "$rgb" "$cmyk" <<'PY' || fail "cmyk.jpg is not classified as the same image in RGB: $rgb / $cmyk"
import json, sys
a, b = (json.loads(s)[0] for s in sys.argv[1:3])
assert a["class"] == b["class"], (a, b)
assert max(abs(x - y) for x, y in zip(a["logits"], b["logits"])) < 0.05 * max(map(abs, a["logits"])), (a, b)
PY
  pass "a CMYK JPEG is converted and classified as its RGB twin"
else
  echo "note: $PY has no PIL; the CMYK JPEG check is left out"
fi

# --- --warmup-epochs longer than the run ------------------------------------------------
expect 0 "--warmup-epochs 5 is longer than the run's 2 epochs: the learning rate climbs for the whole run and ends at 0.004, never reaching --lr 0.01; give --warmup-epochs below 2" -- \
  "$TRAIN" "${ok[@]}" --epochs 2 --lr 0.01 --warmup-epochs 5 --run-dir r2 --checkpoint r2.pt
out=$("$TRAIN" "${ok[@]}" --epochs 2 --warmup-epochs 1 --test-limit 20000 --run-dir r3 --checkpoint r3.pt 2>&1)
grep -q "warmup-epochs" <<<"$out" && fail "a warm-up shorter than the run was warned about: $out"
# --- a limit above the data ---------------------------------------------------------------
grep -q -- "--test-limit 20000 is more than the data's 10000 test images: all of them are used" <<<"$out" ||
  fail "--test-limit above the data was not said: $out"
grep -q -- "--train-limit 100 is more" <<<"$out" && fail "a --train-limit below the data was said: $out"

# --- class names holding commas and quotes ----------------------------------------------
mkdir meta && cp -P data/* meta/
printf 'air,plane\nautomobile\nsay "hi"\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n' >meta/batches.meta.txt
"$TRAIN" --data meta --device cpu --train-limit 100 --epochs 1 --batch-size 50 -q --run-dir r4 \
  --checkpoint r4.pt >/dev/null 2>&1 || fail "training with odd class names failed"
python3 - <<'PY' || fail "confusion.csv's columns are broken: $(head -3 r4/confusion.csv)"
import csv
rows = list(csv.reader(open("r4/confusion.csv")))
assert len(rows) == 11 and all(len(r) == 11 for r in rows), [len(r) for r in rows]
assert rows[0][1] == "air,plane" and rows[0][3] == 'say "hi"' and rows[1][0] == "air,plane", rows[0]
PY
pass "confusion.csv quotes 'air,plane' and 'say \"hi\"' (11 columns in every row)"
echo "all stream and small-thing checks passed"

# --- NO_COLOR (no-color.org): no colour escapes on a terminal -----------------------
# The control: the same error on a terminal (script's pty) is coloured.
coloured=$(script -qec "'$EVAL' --checkpoint missing.pt --data data" /dev/null)
plain=$(NO_COLOR=1 script -qec "'$EVAL' --checkpoint missing.pt --data data" /dev/null)
grep -q $'\e\\[' <<<"$coloured" || fail "no colour on a terminal (the control): $coloured"
grep -q "missing.pt does not exist" <<<"$plain" || fail "no error under NO_COLOR: $plain"
! grep -q $'\e\\[' <<<"$plain" || fail "NO_COLOR=1 still colours: $(cat -v <<<"$plain")"
pass "NO_COLOR=1 takes the colour escapes away"
