#!/usr/bin/env python3
"""reference_airbench.py: the published airbench94 beside cifar-train, on the same data.

The reference is Keller Jordan's airbench94 as PyPI publishes it (the
`airbench` package, 0.1.8: `airbench.train94`, 94% on CIFAR-10 in 3.83 s on
an A100; scripts/setup.sh installs it, prepare.sh copies it into the kit's
reference/). Its loader reads
cifar10/train.pt and cifar10/test.pt, which it would otherwise download
through torchvision: `convert` writes them from CIFAR-10's binary files in
its layout (uint8 images N x 32 x 32 x 3, int64 labels, the class names)
and checks them against those files. `run` times it the way it times
itself (CUDA events around the training and the final evaluation, after a
warm-up run, airbench's `warmup94`) and prints one JSON line per seed
(seed, tta_val_acc, train_seconds); the caller times the whole process
(check_reference.sh), as it times cifar-train's.

  reference_airbench.py convert DATA_DIR OUT_DIR     OUT_DIR/cifar10/{train,test}.pt
  reference_airbench.py probe AIRBENCH_DIR          airbench imports from there
  reference_airbench.py run AIRBENCH_DIR OUT_DIR --seeds 0 1 2
                                          (AIRBENCH_DIR holds the airbench package)

airbench imports torchvision for one thing once its data files exist:
transforms.Normalize. Where torchvision does not import (the GPU machine
need not have it, or may have one built for another torch), an equivalent
stands in, (x - mean) / std per channel as torchvision computes it, and the
output says so.

airbench needs CUDA (it moves its model and data there in half precision):
`run` on a machine without it exits 77, which check.sh reports as skipped.
"""

import argparse
import contextlib
import io
import json
import os
import sys
import types
from pathlib import Path

import torch

RECORD = 3073
TRAIN = [f"data_batch_{i}.bin" for i in range(1, 6)]
NAMES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]


def read_binary(files):
    """(images N x 32 x 32 x 3 uint8, labels N int64) of CIFAR-10 binary files."""
    data = b"".join(f.read_bytes() for f in files)
    a = torch.frombuffer(bytearray(data), dtype=torch.uint8).view(-1, RECORD)
    images = a[:, 1:].view(-1, 3, 32, 32).permute(0, 2, 3, 1).contiguous()
    return images, a[:, 0].to(torch.int64)


def convert(data_dir, out_dir):
    meta = data_dir / "batches.meta.txt"
    classes = [l for l in meta.read_text().split("\n") if l.strip()] if meta.is_file() else NAMES
    target = out_dir / "cifar10"
    target.mkdir(parents=True, exist_ok=True)
    for name, files in (("train", TRAIN), ("test", ["test_batch.bin"])):
        images, labels = read_binary([data_dir / f for f in files])
        torch.save({"images": images, "labels": labels, "classes": classes}, target / f"{name}.pt")
        back = torch.load(target / f"{name}.pt")
        # The first record, as the binary file holds it: label, then R, G, B planes.
        first = (data_dir / files[0]).read_bytes()[:RECORD]
        assert back["labels"][0].item() == first[0], "the first label differs"
        assert bytes(back["images"][0].permute(2, 0, 1).flatten().tolist()) == first[1:], \
            "the first image differs"
        print(f"reference data: {target / name}.pt, {len(labels)} images, checked")


def last_row(text):
    """airbench's final table row ({column: value}) from what it printed."""
    rows = [l for l in text.splitlines() if l.startswith("|")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    return dict(zip(head, (c.strip() for c in rows[-1].strip("|").split("|"))))


def import_airbench(airbench_dir):
    """The airbench package in airbench_dir, torchvision's Normalize stood in where absent."""
    try:
        import torchvision  # noqa: F401
    except Exception as error:  # absent, or built for another torch
        class Normalize(torch.nn.Module):  # torchvision.transforms.Normalize's formula
            def __init__(self, mean, std):
                super().__init__()
                self.mean, self.std = mean, std

            def forward(self, x):
                mean = torch.as_tensor(self.mean, dtype=x.dtype, device=x.device).view(-1, 1, 1)
                std = torch.as_tensor(self.std, dtype=x.dtype, device=x.device).view(-1, 1, 1)
                return (x - mean) / std

        stand_in = types.ModuleType("torchvision")
        stand_in.transforms = types.SimpleNamespace(Normalize=Normalize)
        sys.modules["torchvision"] = stand_in
        sys.modules["torchvision.transforms"] = stand_in.transforms
        print(f"torchvision does not import ({type(error).__name__}: {error}): its "
              "transforms.Normalize stood in by the same formula", file=sys.stderr)
    sys.path.insert(0, str(airbench_dir))
    import airbench

    return airbench


def run(airbench_dir, out_dir, seeds):
    if not torch.cuda.is_available():
        print("airbench94 runs on CUDA only (its model and data in half precision on the GPU)")
        sys.exit(77)
    airbench = import_airbench(airbench_dir)
    os.chdir(out_dir)  # its loader reads ./cifar10/{train,test}.pt

    with contextlib.redirect_stdout(io.StringIO()):
        airbench.warmup94()  # as the reference does before timing
    for seed in seeds:
        torch.manual_seed(seed)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            airbench.train94()
        row = last_row(printed.getvalue())
        print(json.dumps({"seed": seed, "tta_val_acc": float(row["tta_val_acc"]),
                          "train_seconds": float(row["total_time_seconds"])}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("convert")
    c.add_argument("data_dir", type=Path)
    c.add_argument("out_dir", type=Path)
    p = sub.add_parser("probe")
    p.add_argument("airbench_dir", type=Path)
    r = sub.add_parser("run")
    r.add_argument("airbench_dir", type=Path)
    r.add_argument("out_dir", type=Path)
    r.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    if args.command == "convert":
        convert(args.data_dir, args.out_dir)
    elif args.command == "probe":
        airbench = import_airbench(args.airbench_dir.resolve())
        assert callable(airbench.train94) and callable(airbench.warmup94)
        print(f"reference: airbench from {args.airbench_dir} imports")
    else:
        run(args.airbench_dir.resolve(), args.out_dir.resolve(), args.seeds)


if __name__ == "__main__":
    main()
