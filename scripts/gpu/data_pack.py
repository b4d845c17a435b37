#!/usr/bin/env python3
"""data_pack.py: the whole CIFAR-10 in parts small enough for the GPU machine.

A call to the GPU machine carries at most 64 MiB, and CIFAR-10's six binary
files are 184 MB (175.8 MiB). Packed here, losslessly, they are about 89 MB,
in parts of at most --part-mib each, which calls carry one after another:
files an earlier call left on a machine still held are kept, so the parts
gather there (scripts/gpu/prepare.sh --full-data prints the calls).
Unpacked there, every part and every file is checked by SHA-256 against
the manifest before any figure is taken.

The packing: each image's planes (3 x 32 x 32 bytes) become the 2-D
gradient residual r = p - left - up + up_left (zero outside the image),
then each channel's residual less the previous channel's; the labels and
the residuals (mod 256) of all files, in order, go into one xz stream, cut
into parts. Undone by the inverse sums: over the channels, then the rows,
then the columns, mod 256. torch does the arithmetic (numpy need not be
there); lzma and hashlib are Python's own.

  data_pack.py pack DATA_DIR OUT_DIR [--part-mib N]
  data_pack.py unpack PARTS_DIR OUT_DIR     the six files, checked
  data_pack.py missing PARTS_DIR            the parts not there yet (exit 1 if any)
  data_pack.py current DATA_DIR PARTS_DIR   exit 0 when the parts hold DATA_DIR's files
  data_pack.py calls PARTS_DIR --kit-bytes N --tree-bytes M
                                            the calls that carry the kit and the parts

Exit status: 0 done, 1 a part or file missing or wrong (named), 2 usage.
"""

import argparse
import ctypes
import hashlib
import json
import lzma
import sys
from pathlib import Path

FILES = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
RECORD = 3073  # a label byte, then 3 x 32 x 32 pixel bytes
MANIFEST = "cifar10.json"
CODEC = "grad2d+channel-delta+xz"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def as_bytes(t):
    """A CPU tensor's bytes (ctypes: numpy need not be there)."""
    t = t.contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def encode(records):
    """The labels (N bytes), then the residuals (N x 3072 bytes)."""
    import torch  # here, not above: current, missing and calls start without it (3 s)

    a = torch.frombuffer(bytearray(records), dtype=torch.uint8).view(-1, RECORD)
    p = a[:, 1:].view(-1, 3, 32, 32).to(torch.int16)
    pad = torch.nn.functional.pad(p, (1, 0, 1, 0))  # zero left of and above the image
    r = p - pad[..., 1:, :-1] - pad[..., :-1, 1:] + pad[..., :-1, :-1]
    r = torch.cat([r[:, :1], r[:, 1:] - r[:, :-1]], dim=1)
    return as_bytes(a[:, 0]) + as_bytes((r & 255).to(torch.uint8))


def decode(data, n):
    """The records of encode's bytes for n images."""
    import torch

    t = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    labels, r = t[:n], t[n:].view(n, 3, 32, 32).to(torch.int64)
    p = r.cumsum(1).cumsum(2).cumsum(3) & 255
    return as_bytes(torch.cat([labels.view(n, 1), p.to(torch.uint8).view(n, -1)], dim=1))


def pack(data_dir, out_dir, part_bytes):
    out_dir.mkdir(parents=True, exist_ok=True)
    files, stream = [], []
    for name in FILES:
        path = data_dir / name
        if not path.is_file():
            sys.exit(f"error: no {path}: DATA_DIR must hold CIFAR-10's binary files ({', '.join(FILES)})")
        records = path.read_bytes()
        if len(records) % RECORD:
            sys.exit(f"error: {path} is {len(records)} bytes, not whole {RECORD}-byte records")
        n = len(records) // RECORD
        files.append({"name": name, "images": n, "bytes": len(records), "sha256": sha256(records)})
        stream.append(encode(records))
        assert decode(stream[-1], n) == records, f"{name}: the packing does not undo"
    packed = lzma.compress(b"".join(stream), preset=9)
    parts = []
    assert part_bytes >= 1
    for i in range(0, len(packed), part_bytes):
        chunk = packed[i : i + part_bytes]
        name = f"cifar10.xz.part-{len(parts) + 1}"
        (out_dir / name).write_bytes(chunk)
        parts.append({"name": name, "bytes": len(chunk), "sha256": sha256(chunk)})
    manifest = {"codec": CODEC, "files": files, "parts": parts}
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    raw = sum(f["bytes"] for f in files)
    print(f"packed {raw} bytes of {len(files)} files into {len(packed)} bytes "
          f"({len(packed) / raw:.3f}), {len(parts)} parts in {out_dir}")


def read_manifest(parts_dir):
    path = parts_dir / MANIFEST
    if not path.is_file():
        sys.exit(f"error: no {path}: pack the data first (scripts/gpu/prepare.sh --full-data)")
    manifest = json.loads(path.read_text())
    if manifest.get("codec") != CODEC:
        sys.exit(f"error: {path} is packed as {manifest.get('codec')!r}, this script reads {CODEC!r}")
    return manifest


def missing_parts(parts_dir, manifest):
    return [p["name"] for p in manifest["parts"] if not (parts_dir / p["name"]).is_file()]


def unpack(parts_dir, out_dir):
    manifest = read_manifest(parts_dir)
    missing = missing_parts(parts_dir, manifest)
    if missing:
        print(f"error: {len(missing)} of {len(manifest['parts'])} parts are not in {parts_dir}: "
              f"{', '.join(missing)}; carry them in earlier calls to this machine while it is "
              "held (scripts/gpu/prepare.sh --full-data prints the calls)", file=sys.stderr)
        sys.exit(1)
    chunks = []
    for p in manifest["parts"]:
        chunk = (parts_dir / p["name"]).read_bytes()
        if sha256(chunk) != p["sha256"]:
            print(f"error: {parts_dir / p['name']} is damaged (its SHA-256 is not the manifest's): "
                  "carry it again", file=sys.stderr)
            sys.exit(1)
        chunks.append(chunk)
    stream = lzma.decompress(b"".join(chunks))
    if len(stream) != sum(f["images"] * RECORD for f in manifest["files"]):
        print(f"error: the parts unpack to {len(stream)} bytes, not the manifest's files",
              file=sys.stderr)
        sys.exit(1)
    out_dir.mkdir(parents=True, exist_ok=True)
    at = 0
    for f in manifest["files"]:
        size = f["images"] * RECORD
        records = decode(stream[at : at + size], f["images"])
        at += size
        if sha256(records) != f["sha256"]:
            print(f"error: {f['name']} unpacked differs from the packed file (SHA-256)", file=sys.stderr)
            sys.exit(1)
        (out_dir / f["name"]).write_bytes(records)
    train = sum(f["images"] for f in manifest["files"] if f["name"] != "test_batch.bin")
    test = sum(f["images"] for f in manifest["files"] if f["name"] == "test_batch.bin")
    print(f"data: {train} training and {test} test images (the whole set), "
          f"{len(manifest['files'])} files checked by SHA-256, in {out_dir}")


def current(data_dir, parts_dir):
    """Whether parts_dir holds every part, whole, of data_dir's files as they are."""
    path = parts_dir / MANIFEST
    if not path.is_file():
        return False
    manifest = json.loads(path.read_text())
    if manifest.get("codec") != CODEC or missing_parts(parts_dir, manifest):
        return False
    for f in manifest["files"]:
        file = data_dir / f["name"]
        if not file.is_file() or sha256(file.read_bytes()) != f["sha256"]:
            return False
    return all(sha256((parts_dir / p["name"]).read_bytes()) == p["sha256"] for p in manifest["parts"])


CALL_BYTES = 62 * 2**20  # what one call may carry (64 MiB), less a margin
CALL_PATHS = 8  # the paths one call may carry


def calls(parts_dir, kit_bytes, tree_bytes):
    """The device tool's calls, in order: the kit and the parts, as many as fit each call."""
    manifest = read_manifest(parts_dir)
    rel = parts_dir.name
    batches, carry, size = [], [".gpu-kit", f"{rel}/{MANIFEST}"], tree_bytes + kit_bytes
    for p in manifest["parts"]:
        if size + p["bytes"] > CALL_BYTES:
            batches.append(carry)
            carry, size = [], tree_bytes
        carry.append(f"{rel}/{p['name']}")
        size += p["bytes"]
    batches.append(carry)
    for carry in batches:
        size = tree_bytes + sum(p["bytes"] for p in manifest["parts"] if f"{rel}/{p['name']}" in carry)
        if ".gpu-kit" in carry:
            size += kit_bytes
        if size > CALL_BYTES or len(carry) > CALL_PATHS:
            sys.exit(f"error: a call would carry {size >> 20} MiB in {len(carry)} paths, over "
                     f"{CALL_BYTES >> 20} MiB or {CALL_PATHS} paths: pack with another --part-mib "
                     "(the kit itself must leave room for the working tree)")
    print(f"The whole data set travels in {len(batches)} calls to one machine, each at most "
          f"{CALL_BYTES >> 20} MiB with the working tree; each must start before the machine "
          "is given back (30 s idle), so run them one after the other:")
    for i, carry in enumerate(batches, 1):
        last = i == len(batches)
        command = "bash scripts/gpu/check.sh" if last else f"ls -l {rel}"
        # check.sh's steps end within 540 s, then its report.
        limit = ", timeout_s: 600" if last else ", timeout_s: 60"
        print(f"  {i}. carry {json.dumps(carry)}, command: {command!r}{limit}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("data_dir", type=Path)
    p.add_argument("out_dir", type=Path)
    p.add_argument("--part-mib", type=float, default=30)
    u = sub.add_parser("unpack")
    u.add_argument("parts_dir", type=Path)
    u.add_argument("out_dir", type=Path)
    m = sub.add_parser("missing")
    m.add_argument("parts_dir", type=Path)
    c = sub.add_parser("current")
    c.add_argument("data_dir", type=Path)
    c.add_argument("parts_dir", type=Path)
    k = sub.add_parser("calls")
    k.add_argument("parts_dir", type=Path)
    k.add_argument("--kit-bytes", type=int, required=True)
    k.add_argument("--tree-bytes", type=int, required=True)
    args = parser.parse_args()
    if args.command == "pack":
        if args.part_mib * 2**20 < 1:
            parser.error("--part-mib must be at least one byte (1e-6)")
        pack(args.data_dir, args.out_dir, int(args.part_mib * 2**20))
    elif args.command == "unpack":
        unpack(args.parts_dir, args.out_dir)
    elif args.command == "current":
        sys.exit(0 if current(args.data_dir, args.parts_dir) else 1)
    elif args.command == "calls":
        calls(args.parts_dir, args.kit_bytes, args.tree_bytes)
    else:
        missing = missing_parts(args.parts_dir, read_manifest(args.parts_dir))
        print("\n".join(missing))
        sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
