#!/usr/bin/env bash
# Names as the file system has them (issue 47, class 6): cifar-predict on a
# folder whose names hold a newline, a tab, quotes, bytes that are not UTF-8
# (Latin-1, a lone lead byte, an encoded surrogate, 0xFF) and characters past
# them in code-point order walks it in the documented order,
# sorted(os.walk(...)) over Python's str names (byte order differs), the CSV
# gives every name back exactly through Python's csv module, and the image
# that cannot be read ("Q/bad\nname.png") keeps its reason in the CSV's
# error cell and in one log line that names it escaped.
source "$(dirname "$0")/lib/common.bash"
PREDICT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-predict
make_fake_data data
"$TRAIN" --data data --device cpu --threads 1 --model net --epochs 1 --train-limit 200 \
  --test-limit 100 --batch-size 100 --run-dir run --checkpoint m.pt -q >/dev/null 2>&1 ||
  fail "could not train a checkpoint"

python3 - <<'PY' || fail "writing the odd names failed"
import os, struct, zlib
def png(path):
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    rows = b"".join(b"\0" + bytes([200, 50, 50] * 4) for _ in range(4))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
names = [b"a.png", b"\xc3(.png", b"\xc4\x80.png", b"\xee\x80\x80.png", b"\xff.png", b"\xe9t\xe9.png",
         b"\xc3\xa9t\xc3\xa9.png", b"Z.png", b"\xf0\x9f\x99\x82.png", b"\xed\xa0\x80.png",
         b"b\nc.png", b"tab\there.png", b"quote\"and,comma.png", b"it's.png"]
os.makedirs(b"Q/\xc3(sub", exist_ok=True)
os.makedirs(b"Q/\xc4\x80sub", exist_ok=True)
for n in names:
    png(b"Q/" + n)
png(b"Q/\xc3(sub/x.png")
png(b"Q/\xc4\x80sub/x.png")
with open(b"Q/read\nme.txt", "wb") as f:  # skipped, and named so
    f.write(b"notes")
with open(b"Q/bad\nname.png", "wb") as f:
    f.write(b"not an image at all")
PY

"$PREDICT" --checkpoint m.pt --csv out.csv Q >plain.out 2>predict.err
status=$?
[[ $status -eq 1 ]] || { cat predict.err; fail "cifar-predict exited $status, expected 1 (one image unreadable)"; }

python3 - <<'PY' || fail "the CSV does not give back the names, their order or the reason"
import csv, os
want = []
for root, _, files in sorted(os.walk("Q", followlinks=True)):
    for f in sorted(files):
        if f.lower().endswith((".png", ".jpg", ".jpeg")):
            want.append(os.path.join(root, f))
with open("out.csv", newline="", encoding="utf-8", errors="surrogateescape") as f:
    rows = list(csv.DictReader(f))
got = [r["path"] for r in rows]
assert got == want, "order or names differ:\n got  %r\n want %r" % (got, want)
assert sorted(map(os.fsencode, got)) != list(map(os.fsencode, want)), "byte order would pass too"
bad = [r for r in rows if r["path"] == "Q/bad\nname.png"]
assert len(bad) == 1 and "not a PNG or JPEG file" in bad[0]["error"], bad
assert all(r["error"] == "" for r in rows if r is not bad[0]), [r for r in rows if r["error"]]
print(f"{len(rows)} rows in sorted(os.walk) order, every name exact; the bad one: {bad[0]['error']}")
PY

# One log line for the bad image, its name escaped and its reason kept.
grep -qF "error: image 'Q/bad\\nname.png': not a PNG or JPEG file" predict.err ||
  { cat predict.err; fail "the bad image's log line is cut or does not name it escaped"; }
grep -qF "skipped 1 file without a .png, .jpg or .jpeg extension in the folders ('Q/read\nme.txt')" predict.err ||
  { cat predict.err; fail "the skipped file is not named escaped, on one line"; }
lines=$(wc -l <plain.out)
[[ $lines -eq 16 ]] || { cat plain.out; fail "$lines lines of predictions for 16 readable images"; }
grep -qF "'Q/b\\nc.png': " plain.out || { cat plain.out; fail "a name with a newline is not shown escaped"; }
grep -qF "'Q/\\xff.png': " plain.out || { cat plain.out; fail "a name that is not UTF-8 is not shown escaped"; }
grep -qF "Q/quote\"and,comma.png: " plain.out || { cat plain.out; fail "a printable name is not shown as it is"; }
pass "odd names: Python's order, exact CSV names, one line per image and per error with the reason"

# A folder's listing in an error names an odd entry escaped, so the message
# (a log line cut at its first newline) keeps its advice: --data with a
# file and a folder of such names, and a folder given as the model file.
mkdir -p nl/other && touch $'nl/a\nb.png' && mkdir $'nl/tr\nain'
expect 1 "nl holds no data set cifar-train knows \(it holds 'a\\\\nb.png', 'tr\\\\nain'/, other/\): .*or name the kind with --dataset" -- \
  "$TRAIN" --data nl --device cpu
expect 1 "nl has no train/ folder \(it holds 'tr\\\\nain'/, other/\): an image folder holds" -- \
  "$TRAIN" --data nl --dataset folder --device cpu
mkdir models && touch $'models/x\ny.pt'
expect 1 "checkpoint models is a directory, not a file; pass the file inside it \(it holds 'x\\\\ny.pt'\)" -- \
  "$EVAL" --checkpoint models
pass "folder listings in errors name odd entries escaped, the message whole"
