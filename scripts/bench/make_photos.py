#!/usr/bin/env python3
"""Make a folder of two classes of "photos" in train/ + val/ layout, for the
photos benchmark (scripts/bench/photos.sh): no real photo set can be fetched
here, so CIFAR-10 test images of two classes stand in, each upscaled
(bicubic) to its own size and aspect ratio (shorter side 120-400 px, ratio
3:4 to 4:3) and saved as a JPEG, as a user's photos come:

    python scripts/bench/make_photos.py CIFAR_DIR OUT [--classes cat,dog]
        [--train 122] [--val 77] [--test 0] [--val-name val] [--seed 0]

gives OUT/train/<class>/*.jpg (122 a class: 244 images) and OUT/val/<class>/
(77 a class), the sizes of PyTorch's transfer-learning tutorial's ants and
bees; --test N adds OUT/test/<class>/ (N a class) and --val-name validation
names the validation folder as some data sets do. Needs numpy and pillow.
"""
import argparse
import os
import random

import numpy as np
from PIL import Image

NAMES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cifar_dir")
    p.add_argument("out")
    p.add_argument("--classes", default="cat,dog")
    p.add_argument("--train", type=int, default=122)
    p.add_argument("--val", type=int, default=77)
    p.add_argument("--test", type=int, default=0)
    p.add_argument("--val-name", default="val", choices=("val", "valid", "validation"))
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    raw = np.fromfile(os.path.join(a.cifar_dir, "test_batch.bin"), dtype=np.uint8).reshape(-1, 3073)
    labels, images = raw[:, 0], raw[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    rng = random.Random(a.seed)
    for name in a.classes.split(","):
        index = [i for i in range(len(labels)) if labels[i] == NAMES.index(name)]
        rng.shuffle(index)
        splits = (("train", 0, a.train), (a.val_name, a.train, a.val),
                  ("test", a.train + a.val, a.test))
        for split, start, n in splits:
            if n == 0 and split == "test":
                continue
            os.makedirs(os.path.join(a.out, split, name), exist_ok=True)
            for k, i in enumerate(index[start:start + n]):
                short = rng.randint(120, 400)
                ratio = rng.uniform(3 / 4, 4 / 3)
                w, h = (round(short * ratio), short) if ratio >= 1 else (short, round(short / ratio))
                img = Image.fromarray(images[i]).resize((w, h), Image.BICUBIC)
                img.save(os.path.join(a.out, split, name, f"{name}_{k:04d}.jpg"), quality=90)
    print(f"wrote {a.out}: {a.classes} ({a.train} + {a.val} + {a.test} a class)")


if __name__ == "__main__":
    main()
