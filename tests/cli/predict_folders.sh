#!/usr/bin/env bash
# cifar-predict on folders (issue 39): a folder is walked recursively in
# torchvision's order (sorted(os.walk), files sorted; hidden entries and
# non-image files skipped and counted); its rows equal the predictions of
# the same files named one by one; --csv's rows (path, top-k classes and
# probabilities) agree with the plain output; the checkpoint's TTA level is
# applied by default (an image and its mirror image get the same answer at
# level 1, not at --tta 0), level 3 as level 2; --csv is refused onto an
# input; a folder without images is one error line and its own --csv and
# --json row; --logits without --json is said to do nothing;
# --top-k past the classes says so.
source "$(dirname "$0")/lib/common.bash"
PREDICT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-predict

write_folder pets cat,dog,emu train,test
"$TRAIN" --data pets --device cpu --epochs 1 --batch-size 20 --lr 0.05 --tta 1 --run-dir run \
  --checkpoint m.pt >train.out 2>&1 || { cat train.out; fail "training failed"; }

# A folder to classify: images at three depths, one with an upper-case
# extension, a name with a comma, a non-image file and hidden entries.
mkdir -p look/b,a/deep look/.git empty
cp pets/test/cat/000.png pets/test/cat/001.png pets/test/cat/002.png look/
cp pets/test/dog/000.png look/b,a/zz.png
cp pets/test/dog/001.png look/b,a/aa.png
cp pets/test/emu/000.png look/b,a/deep/Z.PNG
cp pets/test/emu/001.png look/.hidden.png
cp pets/test/emu/002.png look/.git/inside.png
echo "not an image" >look/notes.txt
python3 - look >expected.txt <<'PY'
import os, sys
root = sys.argv[1]
for folder, _, names in sorted(os.walk(root, followlinks=True)):
    if any(p.startswith(".") for p in os.path.relpath(folder, root).split(os.sep) if p != "."):
        continue
    for name in sorted(names):
        if not name.startswith(".") and os.path.splitext(name)[1].lower() in (".png", ".jpg", ".jpeg"):
            print(os.path.join(folder, name))
PY
mapfile -t files <expected.txt
[[ ${#files[@]} -eq 6 ]] || fail "expected 6 images in look/, listed ${#files[@]}"

"$PREDICT" --checkpoint m.pt --top-k 2 --csv look.csv look >folder.out 2>folder.err ||
  { cat folder.err; fail "cifar-predict on a folder failed"; }
grep -q "skipped 1 file without a .png, .jpg or .jpeg extension and 2 hidden entries" folder.err ||
  { cat folder.err; fail "the skipped entries are not counted"; }
grep -q "test-time augmentation: level 1 (the checkpoint's; --tta to choose another)" folder.err ||
  { cat folder.err; fail "the checkpoint's TTA level is not the default"; }
"$PREDICT" --checkpoint m.pt --top-k 2 "${files[@]}" >files.out 2>/dev/null || fail "cifar-predict on the files failed"
cmp -s folder.out files.out || { diff folder.out files.out; fail "the folder's lines differ from the files'"; }
for f in "${files[@]}"; do
  "$PREDICT" --checkpoint m.pt --top-k 2 --csv "one-$(basename "$f").csv" "$f" >/dev/null 2>&1 ||
    fail "cifar-predict $f failed"
done
python3 - look.csv folder.out expected.txt <<'PY' || fail "--csv disagrees with the inputs or the plain output"
import csv, os, re, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["path", "class_1", "probability_1", "class_2", "probability_2", "error"], rows[0]
rows = rows[1:]
expected = open(sys.argv[3]).read().splitlines()
assert [r[0] for r in rows] == expected, ([r[0] for r in rows], expected)  # the walk's order
lines = open(sys.argv[2]).read().splitlines()
assert len(lines) == len(rows), (lines, rows)
for row, line in zip(rows, lines):
    m = re.fullmatch(r"(.*): (\w+) ([0-9.]+)% \(then (\w+) ([0-9.]+)%\)", line)
    assert m and m.group(1) == row[0], (line, row)
    assert [m.group(2), m.group(4)] == [row[1], row[3]] and row[5] == "", (line, row)
    for printed, p in ((m.group(3), row[2]), (m.group(5), row[4])):
        assert f"{100 * float(p):.1f}" == printed, (line, row)
    alone = list(csv.reader(open(f"one-{os.path.basename(row[0])}.csv", newline="")))[1]
    assert alone[0] == row[0] and [alone[1], alone[3]] == [row[1], row[3]], (alone, row)
    assert all(abs(float(alone[i]) - float(row[i])) < 1e-4 for i in (2, 4)), (alone, row)
print(f"{len(rows)} rows: the walk's order, the plain output's classes and percentages, "
      "each file's own prediction")
PY
pass "a folder: walked in order, skipped entries counted, rows equal the files' predictions and --csv"

# TTA: an image and its mirror image get the same probabilities at the
# checkpoint's level 1, different ones at --tta 0; --tta 3 is level 2.
mkdir mir
python3 - <<'PY'
import random, struct, zlib
random.seed(7)
pixels = [[[random.randrange(256) for _ in range(3)] for _ in range(32)] for _ in range(32)]
def png(path, rows):
    raw = b"".join(b"\0" + bytes(v for px in row for v in px) for row in rows)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
png("mir/a.png", pixels)
png("mir/b.png", [row[::-1] for row in pixels])
PY
"$PREDICT" --checkpoint m.pt --top-k 3 --csv tta1.csv mir >/dev/null 2>&1 || fail "predict at level 1 failed"
"$PREDICT" --checkpoint m.pt --top-k 3 --csv tta0.csv --tta 0 mir >/dev/null 2>tta0.err || fail "--tta 0 failed"
grep -q "test-time augmentation: level 0 (--tta)" tta0.err || { cat tta0.err; fail "--tta 0 is not said"; }
"$PREDICT" --checkpoint m.pt --top-k 3 --csv tta2.csv --tta 2 look >/dev/null 2>&1 || fail "--tta 2 failed"
"$PREDICT" --checkpoint m.pt --top-k 3 --csv tta3.csv --tta 3 look >/dev/null 2>tta3.err || fail "--tta 3 failed"
grep -q "test-time augmentation: level 2 for every image (--tta says level 3" tta3.err ||
  { cat tta3.err; fail "--tta 3 does not say it applies level 2"; }
cmp -s tta2.csv tta3.csv || fail "--tta 3 does not give level 2's predictions"
python3 - <<'PY' || fail "the TTA level is not applied"
import csv
def probs(path):
    rows = list(csv.reader(open(path, newline="")))[1:]
    return [{r[i]: float(r[i + 1]) for i in (1, 3, 5)} for r in rows]
a, b = probs("tta1.csv")
# Level 1: f(x) and f(flip x) averaged; equal up to float rounding, as the
# folder's centre crop (32 -> 36 px, then 32) is mirror-symmetric up to it.
assert all(abs(a[c] - b[c]) < 1e-5 for c in a), (a, b)
a0, b0 = probs("tta0.csv")
assert max(abs(a0[c] - b0[c]) for c in a0) > 1e-4, (a0, b0)
print("level 1: an image and its mirror image agree", a, "; level 0: they differ", a0, b0)
PY
pass "the checkpoint's TTA by default, --tta to change it, level 3 as level 2"

# --csv onto an input is refused before anything is written; a folder
# without images is one error line, the other images still classified.
sha=$(sha256sum look/000.png m.pt)
expect 2 "--csv look/000.png is the same file as the image look/000.png" -- \
  "$PREDICT" --checkpoint m.pt --csv look/000.png look
expect 2 "--csv m.pt is the same file as --checkpoint m.pt" -- \
  "$PREDICT" --checkpoint m.pt --csv m.pt look/000.png
[[ $(sha256sum look/000.png m.pt) == "$sha" ]] || fail "an input changed"
# --csv replaces only a CSV that cifar-predict wrote: not a FIFO (or device),
# another program's file, or a checkpoint that is no input of this run.
mkfifo pipe.csv && cp m.pt other.pt && echo "name,score" >theirs.csv
expect 2 "--csv pipe.csv is a FIFO, not a CSV file; cifar-predict replaces only CSV files it wrote" -- \
  "$PREDICT" --checkpoint m.pt --csv pipe.csv look/000.png
expect 2 "--csv other.pt holds something cifar-predict did not write" -- \
  "$PREDICT" --checkpoint m.pt --csv other.pt look/000.png
expect 2 "--csv theirs.csv holds something cifar-predict did not write" -- \
  "$PREDICT" --checkpoint m.pt --csv theirs.csv look/000.png
[[ -p pipe.csv && $(cat theirs.csv) == "name,score" ]] && cmp -s m.pt other.pt ||
  fail "a refused --csv replaced the file"
: >blank.csv  # an empty file is replaced; a device (/dev/null) never, --csv - named
expect 0 "" -- "$PREDICT" --checkpoint m.pt --csv blank.csv look/000.png
[[ -s blank.csv ]] || fail "--csv did not replace an empty file"
expect 2 "--csv /dev/null is a character device, not a CSV file; .*\(--csv - prints on the standard output\)" -- \
  "$PREDICT" --checkpoint m.pt --csv /dev/null look/000.png
cp look.csv again.csv
expect 0 "" -- "$PREDICT" --checkpoint m.pt --csv again.csv look/000.png  # its own CSV: replaced
[[ $(wc -l <again.csv) -eq 2 ]] || fail "--csv did not replace the CSV it wrote before"
out=$("$PREDICT" --checkpoint m.pt empty look/000.png 2>empty.err)
status=$?
[[ $status -eq 1 ]] || fail "a folder without images: exit $status, expected 1"
grep -q "empty holds no PNG or JPEG image" empty.err || { cat empty.err; fail "the empty folder is not named"; }
[[ $out == "look/000.png: "* && $(grep -c "" <<<"$out") -eq 1 ]] || fail "the other image was not classified: $out"
# --csv and --json answer for every input named: the folder's row at its place.
"$PREDICT" --checkpoint m.pt --csv empty.csv --json empty look/000.png >empty.json 2>/dev/null &&
  fail "a folder without images exited 0 with --csv"
python3 - <<'PY' || fail "the folder without images has no row of its own in --csv or --json"
import csv, json
rows = list(csv.reader(open("empty.csv", newline="")))[1:]
assert [r[0] for r in rows] == ["empty", "look/000.png"], rows
assert "holds no PNG or JPEG image" in rows[0][-1] and rows[1][-1] == "", rows
objs = json.load(open("empty.json"))
assert [o["file"] for o in objs] == ["empty", "look/000.png"], objs
assert "holds no PNG or JPEG image" in objs[0]["error"] and "class" in objs[1], objs
PY
pass "--csv onto an input refused; a folder without images is an error with its own --csv and --json row, the rest classified"

# --logits goes only into --json: without it, it is said to do nothing.
"$PREDICT" --checkpoint m.pt --logits --csv lg.csv look/000.png >/dev/null 2>lg.err ||
  fail "--logits --csv failed"
grep -q "warning: --logits does nothing here: the raw logits go only into --json's output (--csv has no logits columns); add --json" lg.err ||
  { cat lg.err; fail "--logits without --json is not said"; }
"$PREDICT" --checkpoint m.pt --logits --json look/000.png 2>lg2.err | grep -q '"logits"' ||
  fail "--logits --json gave no logits"
grep -q "logits does nothing" lg2.err && fail "--logits with --json was called ignored"
pass "--logits without --json is said to do nothing"

# --csv - is the standard output, in place of the lines (it wrote a file named '-').
"$PREDICT" --checkpoint m.pt --top-k 2 --csv - look >dash.out 2>/dev/null || fail "--csv - failed"
[[ ! -e ./- ]] || fail "--csv - wrote a file named -"
cmp -s dash.out look.csv || { diff dash.out look.csv; fail "--csv - printed another CSV than --csv FILE"; }
expect 2 "--csv - \(the standard output\) and --json both print there" -- \
  "$PREDICT" --checkpoint m.pt --csv - --json look
pass "--csv - prints the CSV on the standard output"

# --top-k past the model's classes says so, and lists every class once.
expect 0 "warning: --top-k 4: the model knows only 3 classes, so each image lists all 3" -- \
  "$PREDICT" --checkpoint m.pt --top-k 4 --csv k4.csv look
head -1 k4.csv | grep -qx "path,class_1,probability_1,class_2,probability_2,class_3,probability_3,error" ||
  fail "--top-k 4 of 3 classes: the CSV's columns are $(head -1 k4.csv)"
