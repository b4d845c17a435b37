#!/usr/bin/env python3
"""cifar_to_folder.py: CIFAR-10 or CIFAR-100 binary files written out as an
image folder (torchvision's ImageFolder layout) of lossless PNGs.

    OUT/train/<class>/<index>.png    OUT/test/<class>/<index>.png

<index> is the image's position in its split (00000, 00001, ...: train runs on
across data_batch_1.bin ... data_batch_5.bin), zero-padded so that the files
of a class sort in the binary files' order. The pixels are the records' bytes
exactly (8-bit RGB PNG, no colour chunks), so reading the folder back gives
the same images. Class folders are named after the class names
(batches.meta.txt for CIFAR-10, else the standard ten; fine_label_names.txt
or coarse_label_names.txt for CIFAR-100). The official names sort in label
order, so the folder's indices (its sorted class names) are the binary
files' labels.

    cifar_to_folder.py SRC OUT [--labels fine|coarse] [--limit N]

SRC holds data_batch_1.bin ... data_batch_5.bin and test_batch.bin (CIFAR-10)
or train.bin and test.bin (CIFAR-100: --labels fine, 100 classes, or coarse,
20). --limit N writes only the first N images of each split. Needs numpy (the
project's Python environment, ~/.cache/cifar-train/torch-2.11.0/bin/python,
has it); the PNGs are written with zlib, without PIL.
"""

import argparse
import os
import struct
import sys
import zlib

import numpy as np

CIFAR10_NAMES = ["airplane", "automobile", "bird", "cat", "deer",
                 "dog", "frog", "horse", "ship", "truck"]
PIXELS = 3 * 32 * 32


def fail(message):
    sys.exit(f"cifar_to_folder.py: {message}")


def png_bytes(hwc):
    """(H, W, 3) uint8 -> the bytes of an 8-bit RGB PNG (filter 0 on every row)."""
    height, width, _ = hwc.shape
    rows = np.concatenate([np.zeros((height, 1), np.uint8), hwc.reshape(height, width * 3)], 1)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


def read_names(path, count, default=None):
    if not os.path.exists(path):
        if default is not None:
            return default
        fail(f"{path} is missing: it names the classes (download the binary version again)")
    with open(path, encoding="utf-8") as f:
        names = [line.strip() for line in f if line.strip()]
    if len(names) != count:
        if default is not None:
            return default
        fail(f"{path} holds {len(names)} class names, expected {count}")
    return names


def check_names(names, source):
    """Every name must be a folder name, here and on the reader's side."""
    for name in names:
        bad = (name in ("", ".", "..") or name.startswith(".") or "/" in name or "\\" in name
               or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name))
        if bad:
            fail(f"class name {name!r} from {source} cannot be a folder name (empty, hidden, "
                 "a path separator or a control character): fix the name file")
    if len(set(names)) != len(names):
        fail(f"{source} names a class twice: each class needs its own folder")
    if names != sorted(names):
        first = next(i for i, (a, b) in enumerate(zip(names, sorted(names))) if a != b)
        fail(f"{source}'s names do not sort in label order ({names[first]!r} is label {first}, "
             f"but sorts as {sorted(names).index(names[first])}): a folder's class indices are "
             "its sorted folder names, so its labels would differ from the binary files'; "
             "rename the classes so that they sort in label order (e.g. '00-name', '01-name')")


def read_records(paths, record, label_byte, limit):
    """Labels and (N, 3, 32, 32) images from the records of the files, in order."""
    chunks = []
    for path in paths:
        if not os.path.exists(path):
            fail(f"{path} is missing")
        data = np.fromfile(path, np.uint8)
        if data.size % record:
            fail(f"{path} is {data.size} bytes, not a whole number of {record}-byte records")
        chunks.append(data.reshape(-1, record))
        if limit and sum(len(c) for c in chunks) >= limit:
            break
    records = np.concatenate(chunks)[:limit or None]
    return records[:, label_byte].astype(np.int64), records[:, record - PIXELS:].reshape(-1, 3, 32, 32)


def describe_source(src, labels):
    """(kind, {split: files}, record size, label byte, class names, names file)."""
    c10 = [os.path.join(src, f"data_batch_{i}.bin") for i in range(1, 6)]
    if os.path.exists(os.path.join(src, "train.bin")):
        names_file = os.path.join(src, f"{labels}_label_names.txt")
        names = read_names(names_file, 100 if labels == "fine" else 20)
        files = {"train": [os.path.join(src, "train.bin")], "test": [os.path.join(src, "test.bin")]}
        return "CIFAR-100", files, 2 + PIXELS, 1 if labels == "fine" else 0, names, names_file
    if os.path.exists(c10[0]):
        names_file = os.path.join(src, "batches.meta.txt")
        names = read_names(names_file, 10, default=CIFAR10_NAMES)
        files = {"train": c10, "test": [os.path.join(src, "test_batch.bin")]}
        return "CIFAR-10", files, 1 + PIXELS, 0, names, names_file
    fail(f"{src} holds neither CIFAR-10 (data_batch_1.bin ... test_batch.bin) nor CIFAR-100 "
         "(train.bin, test.bin) binary files")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", help="folder of CIFAR-10 or CIFAR-100 binary files")
    parser.add_argument("out", help="image folder to write (OUT/train, OUT/test must not exist)")
    parser.add_argument("--labels", choices=["fine", "coarse"], default="fine",
                        help="CIFAR-100: 100 fine classes (default) or 20 coarse ones")
    parser.add_argument("--limit", type=int, default=0,
                        help="only the first N images of each split (0: all)")
    args = parser.parse_args()
    if args.limit < 0:
        fail(f"--limit {args.limit}: give 0 (all) or a positive count")
    kind, files, record, label_byte, names, names_file = describe_source(args.src, args.labels)
    check_names(names, names_file)
    for split in files:
        if os.path.exists(os.path.join(args.out, split)):
            fail(f"{os.path.join(args.out, split)} exists: choose a new OUT folder")
    for split, paths in files.items():
        labels, images = read_records(paths, record, label_byte, args.limit)
        if labels.size and labels.max() >= len(names):
            fail(f"{paths[0]}: label {labels.max()} is outside 0-{len(names) - 1}")
        missing = [names[c] for c in range(len(names)) if not (labels == c).any()]
        if missing and split == "train":
            print(f"warning: {len(missing)} class(es) have no training image among these "
                  f"{len(labels)} ({', '.join(missing[:5])}...): the folder holds fewer classes, "
                  "so its indices differ from the binary labels", file=sys.stderr)
        for c in sorted(set(labels.tolist())):
            os.makedirs(os.path.join(args.out, split, names[c]), exist_ok=True)
        width = max(5, len(str(len(labels) - 1)))
        for i, (label, chw) in enumerate(zip(labels, images)):
            path = os.path.join(args.out, split, names[label], f"{i:0{width}d}.png")
            with open(path, "wb") as f:
                f.write(png_bytes(chw.transpose(1, 2, 0)))
        print(f"{kind} {split}: {len(labels)} images in {len(names)} classes -> "
              f"{os.path.join(args.out, split)}")


if __name__ == "__main__":
    main()
