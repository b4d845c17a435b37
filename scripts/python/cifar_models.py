"""The models of cifar-train in Python, to use the weights it exports.

The same Net (the PyTorch CIFAR-10 tutorial's) and ResNet-18 (torchvision's
parameter names; the 3x3 CIFAR stem by default) as src/cifar/model/models.cpp, so a
state dict moves between the two with strict=True:

    import torch, cifar_models
    model = cifar_models.Net()
    model.load_state_dict(torch.load("net_state_dict.pt"))   # from cifar-export

or, with a .safetensors file (which says which model it holds):

    model, meta = cifar_models.load("net.safetensors")

Inputs are (N, 3, 32, 32) floats normalised as in training: normalize() does
it for uint8 images the way cifar-train does.
"""
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

# cifar-train's training normalisation (src/cifar/data/data.h).
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


def make_model(name, num_classes=10, stem="cifar"):
    if name == "net":
        return Net(num_classes)
    if name == "resnet18":
        return ResNet18(num_classes, stem)
    raise ValueError(f"unknown model {name!r}: net or resnet18")


def read_weights(path):
    """(state_dict, metadata) from a .safetensors (metadata as written by
    cifar-export) or a .pt/.pth file (metadata empty)."""
    if str(path).endswith(".safetensors"):
        from safetensors import safe_open
        from safetensors.torch import load_file
        with safe_open(path, framework="pt") as f:
            meta = dict(f.metadata() or {})
        return load_file(path), meta
    return torch.load(path), {}


def load(path, model=None, stem=None):
    """A model in eval mode with the file's weights (strict), and a dict with
    model, stem, mean, std and classes (from the metadata, else defaults)."""
    sd, meta = read_weights(path)
    info = {
        "model": model or meta.get("model"),
        "stem": stem or meta.get("stem", "cifar"),
        "mean": tuple(json.loads(meta["mean"])) if "mean" in meta else DEFAULT_MEAN,
        "std": tuple(json.loads(meta["std"])) if "std" in meta else DEFAULT_STD,
        "classes": tuple(json.loads(meta["classes"])) if "classes" in meta else CLASSES,
    }
    if info["model"] is None:
        raise ValueError(f"{os.fspath(path)} does not say which model it holds: pass model=")
    m = make_model(info["model"], len(info["classes"]), info["stem"])
    m.load_state_dict(sd, strict=True)
    return m.eval(), info


def normalize(images_uint8, mean=DEFAULT_MEAN, std=DEFAULT_STD):
    """(N, 3, H, W) uint8 -> float, normalised with cifar-train's arithmetic."""
    mean = torch.tensor(mean, dtype=torch.float32).view(1, 3, 1, 1)
    std = torch.tensor(std, dtype=torch.float32).view(1, 3, 1, 1)
    return (images_uint8.float() - mean * 255.0) * (1.0 / (std * 255.0))


def read_cifar10(path):
    """(images (N, 3, 32, 32) uint8, labels (N) int64) from a CIFAR-10 .bin file."""
    raw = torch.frombuffer(bytearray(open(path, "rb").read()), dtype=torch.uint8).view(-1, 3073)
    return raw[:, 1:].reshape(-1, 3, 32, 32).clone(), raw[:, 0].long()
