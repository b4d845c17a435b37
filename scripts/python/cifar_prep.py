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


def to_input(image_uint8, image_size, mean=DEFAULT_MEAN, std=DEFAULT_STD,
             crop_mode="squash", crop_pct=1.0):
    """(3, H, W) uint8 -> (3, S, S) float, as cifar-eval and cifar-predict
    prepare an image: reduced to its kept side (reduce()), prepared
    (prepare()), then normalised."""
    x = prepare(reduce(image_uint8, kept_side(image_size, crop_pct)), image_size, crop_mode,
                crop_pct)
    return normalize(x.unsqueeze(0), mean, std)[0]


def read_cifar10(path):
    """(images (N, 3, 32, 32) uint8, labels (N) int64) from a CIFAR-10 .bin file."""
    raw = torch.frombuffer(bytearray(open(path, "rb").read()), dtype=torch.uint8).view(-1, 3073)
    return raw[:, 1:].reshape(-1, 3, 32, 32).clone(), raw[:, 0].long()
