#!/usr/bin/env python3
"""airbench_reference.py: Keller Jordan's airbench94_muon, run on the CPU on cifar-train's data files.

The reference for cifar-train's airbench94 recipe: the training of the
repository's research/airbench94_muon_simple.py (Muon on the conv filters,
Nesterov SGD on the biases and head, 8 epochs of batch 2000, label smoothing
0.2 summed, alternating flip + 2-pixel reflect translate, TTA level 2), with
the PyPI package airbench 0.1.8's loader and evaluation copied in below
(MIT licence, (c) Keller Jordan), changed only to:
  - read the CIFAR-10 binary batches (--data) instead of downloading;
  - run on the CPU: the model in float32 (the GPU script keeps it in fp16,
    which CPU convolutions do not accelerate), channels-last, and with
    --precision bf16 the forward under torch.autocast("cpu", bfloat16) as
    the loss and optimisers stay in float32;
  - no torch.compile (on the CPU it would compile with g++ for minutes; the
    Newton-Schulz iteration it compiles is a small share of a step).
It prints one JSON line: the TTA test accuracy, the wall time of whitening +
training + TTA evaluation (what cifar-train's run reports), and the process's
CPU user and system seconds.

    python scripts/bench/airbench_reference.py --data ../shared/cifar-10-batches-bin \
        --precision bf16 --threads 2 --seed 0
"""

import argparse
import contextlib
import json
import os
import resource
import time
from math import ceil
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CIFAR_MEAN = torch.tensor((0.4914, 0.4822, 0.4465))
CIFAR_STD = torch.tensor((0.2470, 0.2435, 0.2616))


def read_split(data_dir, train):
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] if train else ["test_batch.bin"]
    raw = np.concatenate([np.fromfile(Path(data_dir) / n, dtype=np.uint8) for n in names])
    records = raw.reshape(-1, 3073)
    labels = torch.from_numpy(records[:, 0].astype(np.int64))
    images = torch.from_numpy(records[:, 1:].reshape(-1, 3, 32, 32).copy())  # uint8 NCHW
    return images, labels


# --- airbench/utils.py (0.1.8): loader and evaluation -------------------------------

def batch_flip_lr(inputs):
    flip_mask = (torch.rand(len(inputs), device=inputs.device) < 0.5).view(-1, 1, 1, 1)
    return torch.where(flip_mask, inputs.flip(-1), inputs)


def batch_crop(images, crop_size):
    r = (images.size(-1) - crop_size) // 2
    shifts = torch.randint(-r, r + 1, size=(len(images), 2), device=images.device)
    images_out = torch.empty((len(images), 3, crop_size, crop_size), device=images.device,
                             dtype=images.dtype)
    for sy in range(-r, r + 1):
        for sx in range(-r, r + 1):
            mask = (shifts[:, 0] == sy) & (shifts[:, 1] == sx)
            images_out[mask] = images[mask, :, r + sy:r + sy + crop_size, r + sx:r + sx + crop_size]
    return images_out


class CifarLoader:
    def __init__(self, data_dir, train=True, batch_size=500, aug=None, altflip=False, limit=0):
        images, self.labels = read_split(data_dir, train)
        if limit:
            images, self.labels = images[:limit], self.labels[:limit]
        self.images = (images.float() / 255).contiguous(memory_format=torch.channels_last)
        self.mean, self.std = CIFAR_MEAN.view(1, 3, 1, 1), CIFAR_STD.view(1, 3, 1, 1)
        self.proc_images = {}
        self.epoch = 0
        self.aug = aug or {}
        self.batch_size = batch_size
        self.drop_last = train
        self.shuffle = train
        self.altflip = altflip

    def normalize(self, x):
        return (x - self.mean) / self.std

    def __len__(self):
        n = len(self.images)
        return n // self.batch_size if self.drop_last else ceil(n / self.batch_size)

    def __iter__(self):
        if self.epoch == 0:
            images = self.proc_images["norm"] = self.normalize(self.images)
            if self.aug.get("flip", False):
                images = self.proc_images["flip"] = batch_flip_lr(images)
            pad = self.aug.get("translate", 0)
            if pad > 0:
                self.proc_images["pad"] = F.pad(images, (pad,) * 4, "reflect")
        if self.aug.get("translate", 0) > 0:
            images = batch_crop(self.proc_images["pad"], self.images.shape[-2])
        elif self.aug.get("flip", False):
            images = self.proc_images["flip"]
        else:
            images = self.proc_images["norm"]
        if self.aug.get("flip", False):
            if self.altflip:
                if self.epoch % 2 == 1:
                    images = images.flip(-1)
            else:
                images = batch_flip_lr(images)
        self.epoch += 1
        indices = (torch.randperm if self.shuffle else torch.arange)(len(images))
        for i in range(len(self)):
            idxs = indices[i * self.batch_size:(i + 1) * self.batch_size]
            yield images[idxs], self.labels[idxs]


def infer(model, loader, tta_level, autocast):
    def infer_basic(inputs, net):
        return net(inputs).clone()

    def infer_mirror(inputs, net):
        return 0.5 * net(inputs) + 0.5 * net(inputs.flip(-1))

    def infer_mirror_translate(inputs, net):
        logits = infer_mirror(inputs, net)
        padded = F.pad(inputs, (1,) * 4, "reflect")
        translates = [padded[:, :, 0:32, 0:32], padded[:, :, 2:34, 2:34]]
        logits_translate = torch.stack([infer_mirror(t, net) for t in translates]).mean(0)
        return 0.5 * logits + 0.5 * logits_translate

    model.eval()
    test_images = loader.normalize(loader.images)
    infer_fn = [infer_basic, infer_mirror, infer_mirror_translate][tta_level]
    with torch.no_grad(), autocast():
        return torch.cat([infer_fn(inputs, model).float() for inputs in test_images.split(2000)])


def evaluate(model, loader, tta_level, autocast):
    logits = infer(model, loader, tta_level, autocast)
    return (logits.argmax(1) == loader.labels).float().mean().item()


# --- research/airbench94_muon_simple.py: Muon and the network ------------------------

def zeropower_via_newtonschulz5(G, steps=3, eps=1e-7):
    assert len(G.shape) == 2
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.bfloat16()
    X /= (X.norm() + eps)
    if G.size(0) > G.size(1):
        X = X.T
    for _ in range(steps):
        A = X @ X.T
        B = b * A + c * A @ A
        X = a * X + B @ X
    if G.size(0) > G.size(1):
        X = X.T
    return X


class Muon(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, nesterov=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, nesterov=nesterov))

    def step(self):
        for group in self.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(g)
                buf = state["momentum_buffer"]
                buf.mul_(momentum).add_(g)
                g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
                p.data.mul_(len(p.data) ** 0.5 / p.data.norm())
                update = zeropower_via_newtonschulz5(g.reshape(len(g), -1)).view(g.shape)
                p.data.add_(update, alpha=-lr)


class BatchNorm(nn.BatchNorm2d):
    def __init__(self, num_features, momentum=0.6, eps=1e-12):
        super().__init__(num_features, eps=eps, momentum=1 - momentum)
        self.weight.requires_grad = False


class Conv(nn.Conv2d):
    def __init__(self, in_channels, out_channels):
        super().__init__(in_channels, out_channels, kernel_size=3, padding="same", bias=False)

    def reset_parameters(self):
        super().reset_parameters()
        w = self.weight.data
        torch.nn.init.dirac_(w[:w.size(1)])


class ConvGroup(nn.Module):
    def __init__(self, channels_in, channels_out):
        super().__init__()
        self.conv1 = Conv(channels_in, channels_out)
        self.pool = nn.MaxPool2d(2)
        self.norm1 = BatchNorm(channels_out)
        self.conv2 = Conv(channels_out, channels_out)
        self.norm2 = BatchNorm(channels_out)
        self.activ = nn.GELU()

    def forward(self, x):
        x = self.activ(self.norm1(self.pool(self.conv1(x))))
        return self.activ(self.norm2(self.conv2(x)))


class CifarNet(nn.Module):
    def __init__(self):
        super().__init__()
        widths = dict(block1=64, block2=256, block3=256)
        self.whiten = nn.Conv2d(3, 24, 2, padding=0, bias=True)
        self.whiten.weight.requires_grad = False
        self.layers = nn.Sequential(
            nn.GELU(),
            ConvGroup(24, widths["block1"]),
            ConvGroup(widths["block1"], widths["block2"]),
            ConvGroup(widths["block2"], widths["block3"]),
            nn.MaxPool2d(3),
        )
        self.head = nn.Linear(widths["block3"], 10, bias=False)

    def reset(self):
        for m in self.modules():
            if type(m) in (nn.Conv2d, Conv, BatchNorm, nn.Linear):
                m.reset_parameters()
        w = self.head.weight.data
        w *= 1 / w.std()

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="CIFAR-10 binary batches folder")
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="bf16")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=float, default=8)
    parser.add_argument("--train-limit", type=int, default=0, help="first N images (quick checks)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    autocast = ((lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if args.precision == "bf16"
                else contextlib.nullcontext)

    batch_size, bias_lr, head_lr = 2000, 0.053, 0.67
    wd = 2e-6 * batch_size
    test_loader = CifarLoader(args.data, train=False, batch_size=2000)
    train_loader = CifarLoader(args.data, train=True, batch_size=batch_size,
                               aug=dict(flip=True, translate=2), altflip=True,
                               limit=args.train_limit)
    model = CifarNet().to(memory_format=torch.channels_last)
    total_train_steps = ceil(args.epochs * len(train_loader))
    whiten_bias_train_steps = ceil(3 * len(train_loader))
    filter_params = [p for p in model.parameters() if len(p.shape) == 4 and p.requires_grad]
    norm_biases = [p for n, p in model.named_parameters() if "norm" in n and p.requires_grad]
    param_configs = [dict(params=[model.whiten.bias], lr=bias_lr, weight_decay=wd / bias_lr),
                     dict(params=norm_biases, lr=bias_lr, weight_decay=wd / bias_lr),
                     dict(params=[model.head.weight], lr=head_lr, weight_decay=wd / head_lr)]
    optimizer1 = torch.optim.SGD(param_configs, momentum=0.85, nesterov=True)
    optimizer2 = Muon(filter_params, lr=0.24, momentum=0.6, nesterov=True)
    optimizers = [optimizer1, optimizer2]
    for opt in optimizers:
        for group in opt.param_groups:
            group["initial_lr"] = group["lr"]
    model.reset()

    start = time.perf_counter()
    step = 0
    model.init_whiten(train_loader.normalize(train_loader.images[:5000]))
    for epoch in range(ceil(total_train_steps / len(train_loader))):
        model.train()
        for inputs, labels in train_loader:
            with autocast():
                outputs = model(inputs, whiten_bias_grad=(step < whiten_bias_train_steps))
            F.cross_entropy(outputs.float(), labels, label_smoothing=0.2, reduction="sum").backward()
            for group in optimizer1.param_groups[:1]:
                group["lr"] = group["initial_lr"] * (1 - step / whiten_bias_train_steps)
            for group in optimizer1.param_groups[1:] + optimizer2.param_groups:
                group["lr"] = group["initial_lr"] * (1 - step / total_train_steps)
            for opt in optimizers:
                opt.step()
            model.zero_grad(set_to_none=True)
            step += 1
            if step >= total_train_steps:
                break
        print(f"epoch {epoch + 1}: {time.perf_counter() - start:.1f} s", flush=True)
    tta_acc = evaluate(model, test_loader, 2, autocast)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"reference": "airbench94_muon", "precision": args.precision,
                      "threads": args.threads, "seed": args.seed, "steps": step,
                      "tta_accuracy": tta_acc, "wall_seconds": wall,
                      "user_seconds": usage.ru_utime, "system_seconds": usage.ru_stime}),
          flush=True)


if __name__ == "__main__":
    main()
