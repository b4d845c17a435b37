#!/usr/bin/env bash
# Python's cifar_models.read_image decodes an image file as cifar-predict does,
# so that to_input(read_image(path)) gives the tool's logits: 16-bit PNGs
# (grey, RGB, RGBA: libpng's scaling to the bit), grey with alpha, RGBA, a
# palette with a transparent entry and one without, 1-bit grey, colour keys
# (tRNS) on 8- and 16-bit grey and RGB (transparency onto white), JPEG and
# CMYK JPEG; to_input refuses what is not a (3, H, W) uint8 image (a float one,
# channels last, grey, a NumPy array), saying how to make one (it gave other
# predictions without a word).
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_python safetensors PIL torchvision
PREDICT=$(cd "$(dirname "$TRAIN")" && pwd)/cifar-predict
"$PY" - <<'PY' || fail "could not write the images"
import struct, zlib
import numpy as np, torch
from PIL import Image
from safetensors.torch import save_file
import cifar_models as cm
rng = np.random.default_rng(0)
def png(path, pixels, depth, color_type, trns=None):  # a plain PNG writer: PIL writes no 16-bit RGB
    h, w = pixels.shape[:2]
    row = lambda y: (np.packbits(pixels[y].astype(bool)).tobytes() if depth == 1 else
                     pixels[y].astype(">u2" if depth == 16 else "u1").tobytes())
    rows = b"".join(b"\0" + row(y) for y in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    key = b"" if trns is None else chunk(b"tRNS", b"".join(struct.pack(">H", v) for v in trns))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0))
                           + key + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
png("g16.png", rng.integers(0, 65536, (37, 41)), 16, 0)
png("rgb16.png", rng.integers(0, 65536, (37, 41, 3)), 16, 2)
png("rgba16.png", rng.integers(0, 65536, (37, 41, 4)), 16, 6)
png("la.png", rng.integers(0, 256, (37, 41, 2)), 8, 4)
png("rgba.png", rng.integers(0, 256, (37, 41, 4)), 8, 6)
png("g1.png", rng.integers(0, 2, (37, 41)), 1, 0)
g8, rgb8 = rng.integers(0, 4, (37, 41)), rng.integers(0, 2, (37, 41, 3))
png("g8_key.png", g8, 8, 0, trns=[2])  # a grey colour key: those pixels transparent
png("rgb8_key.png", rgb8, 8, 2, trns=[1, 0, 1])
png("g16_key.png", g8 * 300, 16, 0, trns=[600])
png("rgb16_key.png", rgb8 * 40000, 16, 2, trns=[40000, 0, 40000])
Image.fromarray(rng.integers(0, 256, (37, 41), dtype=np.uint8), "L").convert("P").save("pal_opaque.png")
Image.fromarray(rng.integers(0, 256, (37, 41), dtype=np.uint8), "L").convert("P").save("pal.png", transparency=5)
Image.fromarray(rng.integers(0, 256, (37, 41, 3), dtype=np.uint8)).save("photo.jpg", quality=90)
Image.fromarray(rng.integers(0, 256, (37, 41, 3), dtype=np.uint8)).convert("CMYK").save("cmyk.jpg")
torch.manual_seed(0)
save_file({k: v.contiguous() for k, v in cm.Net().state_dict().items()}, "net.safetensors",
          metadata={"model": "net"})
PY
images=(g16.png rgb16.png rgba16.png la.png rgba.png pal.png g1.png g8_key.png rgb8_key.png g16_key.png
  rgb16_key.png pal_opaque.png photo.jpg cmyk.jpg)
"$PREDICT" -q --weights net.safetensors --json --logits "${images[@]}" >pred.json 2>pred.err ||
  { cat pred.err; fail "cifar-predict failed"; }
"$PY" - <<'PY' || fail "read_image and to_input do not give cifar-predict's logits"
import json, torch
import cifar_models as cm
model, info = cm.load("net.safetensors")
for p in json.load(open("pred.json")):
    x = cm.to_input(cm.read_image(p["file"]), info["image_size"], info["mean"], info["std"],
                    info["crop_mode"], info["crop_pct"])
    with torch.no_grad():
        diff = float((model(x[None])[0] - torch.tensor(p["logits"])).abs().max())
    assert diff < 1e-6, (p["file"], diff)
PY
pass "to_input(read_image(path)) gives cifar-predict's logits: 16-bit, alpha, colour keys, palettes, 1-bit grey, JPEG, CMYK"
"$PY" - <<'PY' || fail "to_input took an image it prepares wrongly"
import numpy as np, torch
import cifar_models as cm
for image, says in [(torch.rand(3, 8, 8), "(x * 255).round().to(torch.uint8)"),
                    (torch.zeros(8, 8, 3, dtype=torch.uint8), ".permute(2, 0, 1)"),
                    (torch.zeros(1, 8, 8, dtype=torch.uint8), ".expand(3, -1, -1)"),
                    (torch.zeros(3, 8, 8, dtype=torch.int16), "read_image(path)"),
                    (np.zeros((3, 8, 8), np.uint8), "read_image(path)")]:
    try:
        cm.to_input(image, 32)
    except ValueError as e:
        assert says in str(e), (says, str(e))
    else:
        raise AssertionError(f"to_input took {type(image).__name__} {getattr(image, 'dtype', '')}")
PY
pass "to_input refuses a float, channels-last, grey, int16 or NumPy image, saying how to make one"
