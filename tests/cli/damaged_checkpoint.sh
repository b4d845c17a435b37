#!/usr/bin/env bash
# One changed byte in a checkpoint (weights, momentum buffers, an edit of the
# JSON header that stays valid JSON, the version field) is refused by
# cifar-eval and by --resume with exit 1 and one line naming the file and
# saying "damaged", never "upgrade". A version-1 file (no checksum) still
# loads, with a warning that it cannot be verified. Edits sealed again are
# refused too; a checkpoint missing from a run folder is answered with the
# way on.
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

# Edited and sealed again (the checksum recomputed): a storage shorter than
# its tensor (LibTorch's reader does not compare them: the model read past
# its end, a resume freed memory twice), an entry renamed, a header whose
# image size the model cannot take, settings that are not TOML. Each is
# refused naming the file, exit 1, before any use.
python3 - <<'PY' || fail "could not make the re-sealed copies"
import hashlib, io, json, struct, zipfile
b = open("good.pt", "rb").read()
hl = struct.unpack("<I", b[12:16])[0]
header = json.loads(b[16:16 + hl])
payload = zipfile.ZipFile(io.BytesIO(b[16 + hl:-32]))
def seal(name, header, edit=lambda entry, data: data):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for entry in payload.namelist():
            z.writestr(entry, edit(entry, payload.read(entry)))
    p = out.getvalue()
    header = dict(header, payload_bytes=len(p))
    h = json.dumps(header).encode()
    body = b"CIFARTRN" + struct.pack("<II", 2, len(h)) + h + p
    open(name, "wb").write(body + hashlib.sha256(body).digest())
seal("short.pt", header, lambda e, d: d[:len(d) // 2] if e.endswith("/data/0") else d)
seal("empty.pt", header, lambda e, d: b"" if e.endswith("/data/4") else d)
seal("renamed.pt", header,
     lambda e, d: d.replace(b"momentum.0q", b"momentum.Xq") if e.endswith("data.pkl") else d)
seal("side.pt", dict(header, image=dict(header["image"], side=64)))
seal("toml.pt", dict(header, config="this is not = = toml"))
PY
for f in short empty; do
  expect 1 "checkpoint $f.pt: a tensor of shape \[.*\] needs [0-9]+ bytes of its storage, which holds [0-9]+; the file was edited or is damaged" -- \
    "$EVAL" --checkpoint $f.pt --data data --device cpu
  expect 1 "checkpoint $f.pt: a tensor of shape" -- \
    "$TRAIN" "${ok[@]}" --epochs 2 --resume $f.pt --run-dir run-$f --checkpoint out-$f.pt
done
expect 1 "checkpoint renamed.pt: the weights cannot be read \(Argument passed to at\(\) was not in the map.\); the file is damaged" -- \
  "$EVAL" --checkpoint renamed.pt --data data --device cpu
expect 1 "checkpoint renamed.pt: the weights cannot be read" -- \
  "$TRAIN" "${ok[@]}" --epochs 2 --resume renamed.pt --run-dir run-renamed --checkpoint out-renamed.pt
expect 1 "checkpoint side.pt: header says its net was trained on images of 64 px a side, which a net cannot take" -- \
  "$EVAL" --checkpoint side.pt --data data --device cpu
expect 1 "checkpoint toml.pt: the settings its header holds do not read as TOML" -- \
  "$TRAIN" "${ok[@]}" --epochs 2 --resume toml.pt --run-dir run-toml --checkpoint out-toml.pt

# A checkpoint missing from a run folder (a best.pt whose write failed) is
# answered with the folder's last.pt and the way on, never with a new run
# that would write into that folder.
cp -r run run2 && rm run2/best.pt
expect 1 "checkpoint run2/best.pt does not exist: its run folder holds run2/last.pt: evaluate that, or go on with the run \(cifar-train --config run2/config.toml --resume run2/last.pt\)" -- \
  "$EVAL" --checkpoint run2/best.pt --data data --device cpu
rm run2/last.pt
expect 1 "checkpoint run2/best.pt does not exist: its run folder run2 holds no checkpoint: the run stopped before its first epoch ended; train it again \(cifar-train --config run2/config.toml --overwrite\)" -- \
  "$EVAL" --checkpoint run2/best.pt --data data --device cpu
expect 1 "checkpoint elsewhere.pt does not exist: train one with cifar-train --checkpoint elsewhere.pt" -- \
  "$EVAL" --checkpoint elsewhere.pt --data data --device cpu
