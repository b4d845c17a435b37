"""Made image folders for the fine-tuning tests: stripes of four orientations.

python made_stripes.py DIR KIND TRAIN_PER_CLASS TEST_PER_CLASS SEED writes
DIR/train/<class>/*.png and DIR/test/<class>/*.png, 32x32 RGB PNGs (zlib
alone, no image library):
  KIND "pretrain": classes horizontal, vertical, rising, falling: stripes
      over the whole image (period 4-8 px, random phase and colours, noise);
  KIND "patch": classes horizontal, vertical: stripes in a 14x14 patch at a
      random place on a noisy background, so that a few training images do
      not show a network from scratch what matters, while a network trained
      on the first kind has learnt the orientations.
"""
import math
import os
import random
import struct
import sys
import zlib

SIDE = 32
ANGLES = {"horizontal": 0.0, "vertical": 90.0, "rising": 45.0, "falling": 135.0}


def png_bytes(pixels):
    """pixels: SIDE rows of SIDE (r, g, b) tuples -> the bytes of an RGB PNG."""
    raw = b"".join(b"\0" + bytes(v for px in row for v in px) for row in pixels)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    head = struct.pack(">IIBBBBB", SIDE, SIDE, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw)) +
            chunk(b"IEND", b""))


def stripes(rng, angle, patch):
    period = rng.uniform(4, 8)
    phase = rng.uniform(0, period)
    fg = [rng.randrange(120, 256) for _ in range(3)]
    bg = [rng.randrange(0, 100) for _ in range(3)]
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    x0, y0 = rng.randrange(SIDE - 14), rng.randrange(SIDE - 14)
    rows = []
    for y in range(SIDE):
        row = []
        for x in range(SIDE):
            inside = not patch or (x0 <= x < x0 + 14 and y0 <= y < y0 + 14)
            on = inside and ((y * c + x * s + phase) % period) < period / 2
            base = fg if on else bg
            row.append(tuple(min(255, max(0, v + rng.randrange(-40, 41))) for v in base))
        rows.append(row)
    return rows


def main():
    root, kind, n_train, n_test, seed = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    classes = list(ANGLES) if kind == "pretrain" else ["horizontal", "vertical"]
    rng = random.Random(seed)
    for split, n in (("train", n_train), ("test", n_test)):
        for name in classes:
            os.makedirs(f"{root}/{split}/{name}", exist_ok=True)
            for i in range(n):
                with open(f"{root}/{split}/{name}/{i:04d}.png", "wb") as f:
                    f.write(png_bytes(stripes(rng, ANGLES[name], kind == "patch")))


if __name__ == "__main__":
    main()
