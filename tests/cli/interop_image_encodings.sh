#!/usr/bin/env bash
# Images mean what they show: PNG files that hold the same pixels in other
# encodings (RGBA with opaque alpha, palette, grey, grey+alpha, 16-bit grey,
# gAMA 1.0, sRGB and iCCP chunks), written by PIL, give cifar-predict
# --logits exactly the logits of the plain 8-bit RGB file; an RGBA file with
# transparency gives those of its pixels composited onto white
# (docs/formats.md); a JPEG with an Exif orientation gives those of the same
# JPEG without it. (16-bit files were read as linear light, gAMA applied and
# transparency blended in linear light, so the logits differed.)
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_python PIL
make_fake_data data
expect 0 "" -- "$TRAIN" --data data --device cpu --train-limit 100 --epochs 1 --batch-size 50 -q \
  --run-dir run --checkpoint net.pt

# Each line of groups.txt: files that must give the same logits, the first
# the reference.
"$PY" - <<'PY' || fail "could not write the images"
import io, struct, torch
import PIL.Image as Image, PIL.ImageCms as ImageCms, PIL.PngImagePlugin as Png
g = torch.Generator().manual_seed(0)
palette = torch.randint(0, 256, (64, 3), generator=g, dtype=torch.uint8)
rgb = palette[torch.randint(0, 64, (40, 48), generator=g)]  # 64 colours: a palette fits
grey = torch.randint(0, 256, (40, 48), generator=g, dtype=torch.uint8)
alpha = torch.randint(0, 256, (40, 48), generator=g, dtype=torch.uint8)
img = Image.fromarray(rgb.numpy())
def chunks(**named):
    info = Png.PngInfo()
    for name, data in named.items():
        info.add(name.encode(), data)
    return info
groups = []
img.save("rgb.png")
img.convert("RGBA").save("rgba_opaque.png")
img.quantize(colors=64, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save("palette.png")
assert list(Image.open("palette.png").convert("RGB").getdata()) == list(img.getdata())
img.save("gama1.png", pnginfo=chunks(gAMA=struct.pack(">I", 100000)))
img.save("gama18.png", pnginfo=chunks(gAMA=struct.pack(">I", 55556)))
img.save("srgb.png", pnginfo=chunks(sRGB=b"\0"))
img.save("iccp.png", icc_profile=ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
groups.append("rgb.png rgba_opaque.png palette.png gama1.png gama18.png srgb.png iccp.png")
g_img = Image.fromarray(grey.numpy())
g_img.convert("RGB").save("grey_rgb.png")
g_img.save("grey.png")
g_img.convert("LA").save("grey_la.png")
Image.fromarray((grey.to(torch.int32) * 257).numpy(), mode="I").convert("I;16").save("grey16.png")
groups.append("grey_rgb.png grey.png grey_la.png grey16.png")
# Transparency onto white: v a / 255 + 255 (1 - a / 255), rounded.
a = alpha.to(torch.int32)[..., None]
white = ((rgb.to(torch.int32) * a + 255 * (255 - a) + 127) // 255).to(torch.uint8)
Image.fromarray(white.numpy()).save("on_white.png")
Image.fromarray(torch.cat([rgb, alpha[..., None]], 2).numpy()).save("rgba.png")
groups.append("on_white.png rgba.png")
exif = Image.Exif()
exif[0x0112] = 6  # Orientation: rotate 90
img.save("plain.jpg", quality=90)
img.save("rotated.jpg", quality=90, exif=exif)
assert Image.open("rotated.jpg").getexif()[0x0112] == 6
groups.append("plain.jpg rotated.jpg")
open("groups.txt", "w").write("\n".join(groups) + "\n")
PY

# One file per run: the batch holds one image, so nothing but the pixels differs.
differ=()
while read -r ref others; do
  for f in $ref $others; do
    "$PREDICT" --checkpoint net.pt --json --logits "$f" >"$f.json" 2>"$f.err" ||
      { cat "$f.err" >&2; fail "cifar-predict $f failed"; }
  done
  bad=$("$PY" - "$ref" $others <<'PY'
import json, sys
logits = lambda f: json.load(open(f + ".json"))[0]["logits"]
ref, *others = sys.argv[1:]
print(" ".join(f"{f}(not_as_{ref})" for f in others if logits(f) != logits(ref)))
PY
  ) || fail "could not compare the logits"
  [[ -z $bad ]] && pass "same logits: $ref $others"
  differ+=($bad)
done <groups.txt
((${#differ[@]} == 0)) || fail "other logits: ${differ[*]}"
