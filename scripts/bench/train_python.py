#!/usr/bin/env python3
"""train_python.py: the Python PyTorch counterpart of cifar-train, for benchmarking.

It trains the same models (the tutorial Net, or ResNet-18 with the CIFAR stem)
on the same CIFAR-10 binary files with the same optimisation (cross-entropy,
SGD with momentum, constant learning rate, no augmentation) and the same
normalisation as cifar-train, and prints ONE JSON line with the speed of the
LAST training epoch (as run_bench.py reads the last row of cifar-train's
metrics.csv) and the test accuracy after the last epoch.

Two ways to feed the model (--loader):
  tutorial  what the official PyTorch CIFAR-10 tutorial does: a Dataset that
            turns one uint8 HWC image at a time into a normalised CHW float
            tensor (the ToTensor + Normalize code path of torchvision, minus
            the PIL round trip, so slightly faster than the real tutorial), and
            a DataLoader(shuffle=True) that collates batches; batches are moved
            to the device one by one.
  tensor    what cifar-train does: the whole uint8 dataset lives on the device
            as one tensor; each epoch draws a randperm, each step gathers its
            batch by index and normalises it there.

Timing: each epoch is timed with time.perf_counter() between two
torch.cuda.synchronize() calls on a GPU; evaluation is not timed. The loss and
accuracy are accumulated on the device and read back once per epoch. Uses only
torch and numpy (no torchvision).

Example:
  python scripts/bench/train_python.py --model net --data ../shared/cifar-10-batches-bin \
      --device cpu --batch-size 256 --lr 0.05 --loader tensor
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

# The normalisation cifar-train uses (applied to pixel / 255).
MEAN = (0.4914, 0.4822, 0.4465)
STD = (0.2470, 0.2435, 0.2616)
RECORD_BYTES = 1 + 3 * 32 * 32  # label byte, then 1024 R, 1024 G, 1024 B


# --- Data ----------------------------------------------------------------------


def read_cifar10(data_dir: Path, train: bool):
    """Returns (images uint8 (N, 3, 32, 32), labels int64 (N,)) as numpy arrays."""
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] if train else ["test_batch.bin"]
    records = np.concatenate(
        [np.fromfile(data_dir / name, dtype=np.uint8).reshape(-1, RECORD_BYTES) for name in names]
    )
    labels = records[:, 0].astype(np.int64)
    images = records[:, 1:].reshape(-1, 3, 32, 32)
    return images, labels


class TutorialDataset(torch.utils.data.Dataset):
    """One sample at a time, as torchvision's CIFAR10 with ToTensor() + Normalize() serves it.

    Like torchvision, it keeps the images as (N, 32, 32, 3) uint8 and the labels
    as a list of ints, and converts each image on every access.
    """

    def __init__(self, images_nchw: np.ndarray, labels: np.ndarray):
        self.images = np.ascontiguousarray(images_nchw.transpose(0, 2, 3, 1))  # (N, 32, 32, 3)
        self.labels = labels.tolist()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        # ToTensor: HWC uint8 -> CHW float in [0, 1].
        image = torch.from_numpy(self.images[index].transpose(2, 0, 1)).contiguous()
        image = image.to(dtype=torch.get_default_dtype()).div(255)
        # Normalize: (x - mean) / std per channel, on a copy.
        mean = torch.as_tensor(MEAN, dtype=image.dtype).view(-1, 1, 1)
        std = torch.as_tensor(STD, dtype=image.dtype).view(-1, 1, 1)
        image = image.clone().sub_(mean).div_(std)
        return image, self.labels[index]


class DeviceDataset:
    """The whole split as one uint8 tensor on the device, batched by index (as cifar-train)."""

    def __init__(self, images: np.ndarray, labels: np.ndarray, device, channels_last: bool):
        self.images = torch.from_numpy(images).to(device)  # (N, 3, 32, 32) uint8
        self.labels = torch.from_numpy(labels).to(device)  # (N,) int64
        self.shift = (torch.tensor(MEAN) * 255).view(1, 3, 1, 1).to(device)
        self.scale = (1 / (torch.tensor(STD) * 255)).view(1, 3, 1, 1).to(device)
        self.channels_last = channels_last

    def __len__(self):
        return self.labels.numel()

    def batches(self, order: torch.Tensor, batch_size: int):
        """Yields (images float (B, 3, 32, 32), labels (B,)) in the given order."""
        for start in range(0, order.numel(), batch_size):
            index = order[start : start + batch_size]
            images = self.images.index_select(0, index).float().sub_(self.shift).mul_(self.scale)
            if self.channels_last:
                images = images.contiguous(memory_format=torch.channels_last)
            yield images, self.labels.index_select(0, index)


def epoch_order(n: int, seed: int, epoch: int, device) -> torch.Tensor:
    """The shuffle of one epoch: cifar-train's generator seed, so the same permutation."""
    generator = torch.Generator().manual_seed(seed * 1000003 + epoch)
    return torch.randperm(n, generator=generator).to(device)


def tutorial_batches(loader, device, channels_last: bool):
    """The tutorial's loop body: each collated batch copied to the device."""
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        if channels_last:
            images = images.contiguous(memory_format=torch.channels_last)
        yield images, labels


# --- Models --------------------------------------------------------------------


class Net(nn.Module):
    """The PyTorch CIFAR-10 tutorial's network."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):  # x: (N, 3, 32, 32)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # (N, 6, 14, 14)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # (N, 16, 5, 5)
        x = torch.flatten(x, 1)  # (N, 400)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)  # (N, 10)


def conv3x3(in_planes, planes, stride):
    return nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride):
        super().__init__()
        # Created in cifar-train's order, so that one seed gives the same weights.
        self.conv1 = conv3x3(in_planes, planes, stride)
        self.conv2 = conv3x3(planes, planes, 1)
        self.bn1 = nn.BatchNorm2d(planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes)
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNet18(nn.Module):
    """ResNet-18 with the CIFAR stem (3x3 stride-1 conv, no max-pool), torchvision's init."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = conv3x3(3, 64, 1)
        self.bn1 = nn.BatchNorm2d(64)
        layers, in_planes = [], 64
        for planes, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks = [BasicBlock(in_planes, planes, stride), BasicBlock(planes, planes, 1)]
            layers.append(nn.Sequential(*blocks))
            in_planes = planes
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.fc = nn.Linear(512, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)

    def forward(self, x):  # x: (N, 3, 32, 32)
        x = F.relu(self.bn1(self.conv1(x)))  # (N, 64, 32, 32)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))  # (N, 512, 4, 4)
        x = F.adaptive_avg_pool2d(x, 1)  # (N, 512, 1, 1)
        return self.fc(torch.flatten(x, 1))  # (N, 10)


MODELS = {"net": Net, "resnet18": ResNet18}


# --- Training and evaluation ---------------------------------------------------


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def train_one_epoch(model, optimizer, batches, device, amp: bool):
    """Trains on `batches`; returns (images seen, mean loss, accuracy) after one read-back."""
    model.train()
    loss_sum = torch.zeros((), device=device)
    correct = torch.zeros((), dtype=torch.int64, device=device)
    images_seen = 0
    for images, labels in batches:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            logits = model(images)  # (B, 10)
            loss = F.cross_entropy(logits.float(), labels)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            loss_sum += loss.detach() * labels.size(0)
            correct += (logits.argmax(1) == labels).sum()
        images_seen += labels.size(0)
    return images_seen, loss_sum.item() / images_seen, correct.item() / images_seen


def evaluate(model, data: DeviceDataset, batch_size: int, device, amp: bool):
    """Returns (mean loss, accuracy) on the whole split, in inference mode."""
    model.eval()
    loss_sum = torch.zeros((), dtype=torch.float64, device=device)
    correct = torch.zeros((), dtype=torch.int64, device=device)
    order = torch.arange(len(data), device=device)
    with torch.inference_mode():
        for images, labels in data.batches(order, batch_size):
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
                logits = model(images).float()
            loss_sum += F.cross_entropy(logits, labels, reduction="sum")
            correct += (logits.argmax(1) == labels).sum()
    return loss_sum.item() / len(data), correct.item() / len(data)


# --- Command line --------------------------------------------------------------


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="net")
    parser.add_argument("--data", type=Path, required=True, help="CIFAR-10 binary folder")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op CPU threads (0: torch's default)")
    parser.add_argument("--amp", choices=["bf16", "off"], default="off")
    parser.add_argument("--channels-last", action="store_true")
    parser.add_argument("--cudnn-benchmark", action="store_true",
                        help="off by default, as in cifar-train")
    parser.add_argument("--tf32", action="store_true", help="off by default, as in cifar-train")
    parser.add_argument("--train-limit", type=int, default=0,
                        help="first N training images only (0: all)")
    parser.add_argument("--eval-batch-size", type=int, default=1000)
    parser.add_argument("--loader", choices=["tutorial", "tensor"], default="tensor")
    parser.add_argument("--workers", type=int, default=0,
                        help="DataLoader workers (--loader tutorial)")
    return parser.parse_args()


def main():
    args = parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = args.cudnn_benchmark
        # Python allows TF32 convolutions by default; cifar-train does not.
        torch.backends.cudnn.allow_tf32 = args.tf32
        torch.backends.cuda.matmul.allow_tf32 = args.tf32
    amp = args.amp == "bf16"

    train_images, train_labels = read_cifar10(args.data, train=True)
    if args.train_limit > 0:
        train_images = train_images[: args.train_limit]
        train_labels = train_labels[: args.train_limit]
    test_data = DeviceDataset(*read_cifar10(args.data, train=False), device, args.channels_last)
    if args.loader == "tensor":
        train_data = DeviceDataset(train_images, train_labels, device, args.channels_last)

        def epoch_batches(epoch):
            order = epoch_order(len(train_data), args.seed, epoch, device)
            return train_data.batches(order, args.batch_size)

    else:
        loader = torch.utils.data.DataLoader(
            TutorialDataset(train_images, train_labels),
            batch_size=args.batch_size,
            shuffle=True,
            num_workers=args.workers,
            generator=torch.Generator().manual_seed(args.seed),
        )

        def epoch_batches(epoch):
            return tutorial_batches(loader, device, args.channels_last)

    torch.manual_seed(args.seed)
    model = MODELS[args.model]().to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

    epochs = []
    for epoch in range(1, args.epochs + 1):
        batches = epoch_batches(epoch)  # the tensor loader shuffles here, untimed (as C++)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        synchronize(device)
        start = time.perf_counter()
        images_seen, train_loss, train_accuracy = train_one_epoch(
            model, optimizer, batches, device, amp
        )
        synchronize(device)
        seconds = time.perf_counter() - start
        peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else 0
        epochs.append(
            {
                "seconds": seconds,
                "images_per_second": images_seen / seconds,
                "train_loss": train_loss,
                "train_accuracy": train_accuracy,
                "peak_memory_bytes": peak,
            }
        )

    test_loss, test_accuracy = evaluate(model, test_data, args.eval_batch_size, device, amp)
    last = epochs[-1]
    print(
        json.dumps(
            {
                "impl": "python",
                "loader": args.loader,
                "torch": torch.__version__,
                "images_per_second": last["images_per_second"],  # last epoch
                "epoch_seconds": last["seconds"],  # last epoch
                "train_loss": last["train_loss"],  # last epoch
                "test_loss": test_loss,  # after the last epoch
                "test_accuracy": test_accuracy,  # after the last epoch
                "peak_memory_bytes": last["peak_memory_bytes"],  # last epoch; 0 on the CPU
                "epochs": epochs,
            }
        )
    )


if __name__ == "__main__":
    main()
