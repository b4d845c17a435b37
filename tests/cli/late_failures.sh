#!/usr/bin/env bash
# An output that cannot be written is reported before training starts, with
# the names really used (the atomic write's temporary name included), and
# text from files that is not UTF-8 never ends a run after the work: class
# names are kept visible as \xNN text in the checkpoint, JSON and messages.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
ok=(--data data --device cpu --train-limit 100 --epochs 1 --batch-size 50)

# --- checkpoint names near the folder's limit (255 bytes on Linux) ---------------
long=$(printf 'c%.0s' {1..250}).pt # 253 bytes: the name fits, its ".NAME.tmpXXXXXXXX" would not
expect 0 "epoch 1/1" -- "$TRAIN" "${ok[@]}" --run-dir r1 --checkpoint "$long"
[[ -f $long ]] || fail "the 253-byte checkpoint name was not written"
"$EVAL" --checkpoint "$long" --data data --device cpu -q >/dev/null || fail "the long-named checkpoint does not evaluate"
ls -a | grep -q '\.tmp' && fail "a temporary file was left behind: $(ls -a | grep '\.tmp')"
toolong=$(printf 'c%.0s' {1..260}).pt
out=$("$TRAIN" "${ok[@]}" --run-dir r2 --checkpoint "$toolong" 2>&1)
status=$?
[[ $status -eq 1 ]] || fail "a 263-byte checkpoint name exited $status, expected 1: $out"
grep -Eq "cannot write c+\.pt: File name too long; choose a writable --checkpoint" <<<"$out" ||
  fail "no 'File name too long' message: $out"
grep -q "epoch 1/1" <<<"$out" && fail "the name too long was found only after training: $out"
[[ ! -e r2/config.toml ]] || fail "r2/config.toml was written although an output cannot be"
pass "263-byte --checkpoint refused before training: $(grep -Eo 'File name too long; choose a writable --checkpoint' <<<"$out")"

# --- class names that are not UTF-8 -------------------------------------------------
mkdir meta && cp -P data/* meta/
printf 'airplane\nautomobile\nbird\ncaf\xe9\ndeer\ndog\nfrog\nhorse\nship\ntruck\n' >meta/batches.meta.txt
expect 0 "batches.meta.txt: line 4 is not plain UTF-8 text; the class name is used as 'caf\\\\xE9'" -- \
  "$TRAIN" --data meta --device cpu --train-limit 100 --epochs 1 --batch-size 50 --run-dir r3 --checkpoint meta.pt
[[ -f meta.pt && -f r3/best.pt ]] || fail "no checkpoint after a run with a non-UTF-8 class name"
"$EVAL" --checkpoint meta.pt --data meta --device cpu -q --json >meta.json || fail "cifar-eval --json failed"
python3 - <<'PY' || fail "cifar-eval --json does not name the class caf\\xE9"
import json
names = json.load(open("meta.json"))["per_class"]
assert "caf\\xE9" in names, names
PY
pass "a non-UTF-8 class name is kept as caf\\xE9 in the checkpoint and in JSON"

# --- file names that are not UTF-8, in cifar-predict's JSON ----------------------
python3 - <<'PY'
import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
rows = b"".join(b"\0" + bytes([200, 10, 10]) * 32 for _ in range(32))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
open(b"caf\xe9.png", "wb").write(png)
PY
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
out=$("$BIN/cifar-predict" --checkpoint meta.pt -q --json $'caf\xe9.png' 2>&1)
status=$?
[[ $status -eq 0 ]] || fail "cifar-predict --json on a non-UTF-8 file name exited $status: $out"
grep -q "json.exception" <<<"$out" && fail "a JSON library's exception is the message: $out"
python3 -c 'import json,sys; assert json.loads(sys.argv[1])[0]["file"] == "caf\ufffd.png"' "$out" ||
  fail "cifar-predict --json is not valid JSON naming caf\ufffd.png: $out"
pass "cifar-predict --json with a non-UTF-8 file name: valid JSON, the byte shown as U+FFFD"
echo "all late-failure checks passed"
