#!/usr/bin/env bash
# One changed byte in a checkpoint (weights, momentum buffers, an edit of the
# JSON header that stays valid JSON, the version field) is refused by
# cifar-eval and by --resume with exit 1 and one line naming the file and
# saying "damaged", never "upgrade". A version-1 file (no checksum) still
# loads, with a warning that it cannot be verified.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
ok=(--data data --device cpu --train-limit 100 --batch-size 50 --lr 0.01 -q)
"$TRAIN" "${ok[@]}" --epochs 1 --checkpoint good.pt --run-dir run >/dev/null 2>&1 || fail "could not train a checkpoint"
"$EVAL" --checkpoint good.pt --data data --device cpu --json >/dev/null 2>&1 || fail "the good checkpoint does not load"

python3 - <<'PY' || fail "could not make the damaged copies"
import io, json, struct, zipfile
b = bytes(open("good.pt", "rb").read())
hl = struct.unpack("<I", b[12:16])[0]
header = json.loads(b[16:16 + hl])
start = 16 + hl
payload = b[start:start + header["payload_bytes"]]
# The payload is a LibTorch archive (zip): the model's tensors come first,
# then the optimizer's momentum buffers, one entry per tensor. fc1.weight
# (120 x 400 floats, 192,000 bytes) appears once in each.
entries = [e for e in zipfile.ZipFile(io.BytesIO(payload)).infolist()
           if "/data/" in e.filename and e.file_size == 192000]
assert len(entries) == 2, entries
def data_offset(entry):  # start of the entry's bytes in the file
    name_len, extra_len = struct.unpack("<HH", payload[entry.header_offset + 26:entry.header_offset + 30])
    return start + entry.header_offset + 30 + name_len + extra_len
def flipped(at):
    c = bytearray(b); c[at] ^= 0x40; return c
open("weights.pt", "wb").write(flipped(data_offset(entries[0]) + 1001))
open("momentum.pt", "wb").write(flipped(data_offset(entries[1]) + 1001))
at = b.index(b"0.4914")
open("header.pt", "wb").write(b[:at] + b"0.4915" + b[at + 6:])
open("version.pt", "wb").write(b[:8] + struct.pack("<I", 27905) + b[12:])
# Version 1: the same layout without the 32-byte checksum at the end.
open("v1.pt", "wb").write(b[:8] + struct.pack("<I", 1) + b[12:-32])
PY

for f in weights momentum header version; do
  expect 1 "checkpoint $f.pt is damaged" -- "$EVAL" --checkpoint $f.pt --data data --device cpu
  grep -q upgrade <<<"$("$EVAL" --checkpoint $f.pt --data data --device cpu 2>&1)" && fail "$f.pt: says upgrade"
  expect 1 "checkpoint $f.pt is damaged" -- "$TRAIN" "${ok[@]}" --epochs 2 --resume $f.pt --run-dir run-$f --checkpoint out-$f.pt
done
[[ ! -e run-weights/metrics.csv && ! -e out-momentum.pt ]] || fail "training started from a damaged checkpoint"
expect 0 "v1.pt has format version 1.*cannot be verified" -- "$EVAL" --checkpoint v1.pt --data data --device cpu
