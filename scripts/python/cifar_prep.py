"""Images in Python as cifar-eval and cifar-predict prepare them
(cifar_models.py re-exports these): reduced to the tier, resized and cropped
(timm's crop_mode and crop_pct), normalised with cifar-train's arithmetic.
"""
import math

import torch
import torch.nn.functional as F

from cifar_nets import DEFAULT_MEAN, DEFAULT_STD


def normalize(images_uint8, mean=DEFAULT_MEAN, std=DEFAULT_STD):
    """(N, 3, H, W) uint8 -> float, normalised with cifar-train's arithmetic."""
    mean = torch.tensor(mean, dtype=torch.float32).view(1, 3, 1, 1)
    std = torch.tensor(std, dtype=torch.float32).view(1, 3, 1, 1)
    return (images_uint8.float() - mean * 255.0) * (1.0 / (std * 255.0))


def prepare(image_uint8, image_size, crop_mode="squash", crop_pct=1.0):
    """(3, H, W) uint8 -> (3, S, S) uint8-valued float, as cifar-train
    prepares an image (src/cifar/core/image_prep.h): resized (bilinear,
    antialiased, rounded, as torchvision's Resize(antialias=True) on a uint8
    tensor) to floor(S / crop_pct) square ("squash") or with its shorter side
    at it ("center": torchvision's Resize(int)), then the centre S x S
    (torchvision's CenterCrop). timm's eval transform with these crop_mode and
    crop_pct gives the same crop."""
    x = image_uint8.float().unsqueeze(0)
    h, w = x.shape[-2:]
    scale = math.floor(image_size / crop_pct + 1e-9)
    new_h = new_w = scale
    if crop_mode == "center" and h != w:
        if w < h:
            new_h = int(scale * h / w)
        else:
            new_w = int(scale * w / h)
    elif crop_mode not in ("center", "squash"):
        raise ValueError(f"crop_mode {crop_mode!r}: use center or squash")
    if (h, w) != (new_h, new_w):
        x = F.interpolate(x, size=(new_h, new_w), mode="bilinear",
                          align_corners=False, antialias=True).round().clamp(0, 255)
    top = int(round((new_h - image_size) / 2.0))
    left = int(round((new_w - image_size) / 2.0))
    return x[0, :, top:top + image_size, left:left + image_size]


def kept_side(image_size, crop_pct=1.0, whole_size=0):
    """The side a photo's shorter side is reduced to before it is prepared
    (src/cifar/core/image_prep.h: kept_side): the least power of two, at
    least 256, not below what the preparation resizes to."""
    needed = max(256, math.floor(image_size / crop_pct + 1e-9), whole_size)
    tier = 256
    while tier < needed:
        tier *= 2
    return tier


def reduce(image_uint8, max_short):
    """(3, H, W) uint8 -> (3, h, w) uint8: the shorter side resized to
    max_short when it is longer, the longer to int(max_short * long / short),
    bilinear with antialiasing, rounded (formats/image.h: reduce_image); a
    smaller image as it is. The copy of a photo an image folder keeps."""
    h, w = image_uint8.shape[-2:]
    if min(h, w) <= max_short:
        return image_uint8
    new_h = int(max_short * h / w) if w < h else max_short
    new_w = int(max_short * w / h) if h < w else max_short
    x = F.interpolate(image_uint8.float().unsqueeze(0), size=(new_h, new_w), mode="bilinear",
                      align_corners=False, antialias=True)
    return x.round().clamp(0, 255)[0].to(torch.uint8)


def read_image(path):
    """A PNG or JPEG file -> (3, H, W) uint8, as cifar-eval and cifar-predict
    decode it (src/cifar/formats/image.cpp): grey as RGB, a PNG's
    transparency (alpha, a palette's or a colour key's tRNS) composited onto
    white, 16-bit PNG scaled to the nearest 8-bit value (libpng's
    png_set_scale_16); EXIF orientation is not applied, as the tools do not.
    JPEG through torchvision (libjpeg, CMYK as the tools take it), PNG
    through PIL, 16-bit PNG through torchvision (PIL truncates it)."""
    from torchvision.io import ImageReadMode, decode_image
    raw = open(path, "rb").read()
    if not raw.startswith(b"\x89PNG\r\n\x1a\n"):
        data = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
        return decode_image(data, mode=ImageReadMode.RGB)
    if raw[24] == 16:  # IHDR's bit depth
        x = _png16_rgba(raw, decode_image, ImageReadMode)
    else:
        from PIL import Image
        with Image.open(path) as im:
            rgba = im.convert("RGBA")  # palette, grey, low depths, tRNS: expanded
            x = torch.frombuffer(bytearray(rgba.tobytes()), dtype=torch.uint8)
            x = x.view(rgba.height, rgba.width, 4).permute(2, 0, 1).to(torch.int32)
    rgb, alpha = x[:3], x[3:]
    return ((rgb * alpha + 255 * (255 - alpha) + 127) // 255).to(torch.uint8)


def _png16_rgba(raw, decode_image, mode):
    """A 16-bit PNG's (4, H, W) int32 RGBA scaled to 8 bits as libpng
    scales it (png_do_scale_16_to_8), its tRNS colour key made transparent."""
    x = decode_image(torch.frombuffer(bytearray(raw), dtype=torch.uint8),
                     mode=mode.RGB_ALPHA).to(torch.int32)  # 16-bit samples kept
    at = raw.find(b"tRNS")
    if at > 0 and raw[25] in (0, 2):  # grey or RGB with a colour key
        key = [int.from_bytes(raw[at + 4 + i:at + 6 + i], "big") for i in range(0, 6, 2)]
        key = key[:1] * 3 if raw[25] == 0 else key
        keyed = (x[:3] == torch.tensor(key).view(3, 1, 1)).all(0)
        x[3][keyed] = 0
    high, low = x >> 8, x & 255
    return high + (((low - high + 128) * 65535) >> 24)


def _check_image(image):
    """ValueError unless `image` is what to_input takes, saying how to get it."""
    how = "read_image(path) gives one, decoded as cifar-predict decodes it"
    if not isinstance(image, torch.Tensor):
        raise ValueError(f"to_input takes a (3, H, W) uint8 tensor, not a {type(image).__name__}: {how}")
    if image.dtype != torch.uint8:
        hint = ("a float image in [0, 1] (torchvision's ToTensor) is "
                "(x * 255).round().to(torch.uint8)" if image.is_floating_point() else how)
        raise ValueError(f"to_input takes a uint8 image (values 0-255), not {image.dtype}: {hint}")
    if image.dim() != 3 or image.shape[0] != 3:
        shape = tuple(image.shape)
        hint = (".permute(2, 0, 1) makes an (H, W, 3) image (3, H, W)"
                if image.dim() == 3 and image.shape[-1] == 3 else
                ".expand(3, -1, -1) makes a (1, H, W) grey image RGB"
                if image.dim() == 3 and image.shape[0] == 1 else how)
        raise ValueError(f"to_input takes a (3, H, W) image, not {shape}: {hint}")


def to_input(image_uint8, image_size, mean=DEFAULT_MEAN, std=DEFAULT_STD,
             crop_mode="squash", crop_pct=1.0):
    """(3, H, W) uint8 (read_image(path)) -> (3, S, S) float, as cifar-eval
    and cifar-predict prepare an image: reduced to its kept side (reduce()),
    prepared (prepare()), then normalised. ValueError for another dtype or
    shape, saying how to get this one."""
    _check_image(image_uint8)
    x = prepare(reduce(image_uint8, kept_side(image_size, crop_pct)), image_size, crop_mode,
                crop_pct)
    return normalize(x.unsqueeze(0), mean, std)[0]


def read_cifar10(path):
    """(images (N, 3, 32, 32) uint8, labels (N) int64) from a CIFAR-10 .bin file."""
    raw = torch.frombuffer(bytearray(open(path, "rb").read()), dtype=torch.uint8).view(-1, 3073)
    return raw[:, 1:].reshape(-1, 3, 32, 32).clone(), raw[:, 0].long()
