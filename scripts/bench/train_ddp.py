#!/usr/bin/env python3
"""train_ddp.py: the Python DistributedDataParallel counterpart of cifar-train's several-process training.

Started by torchrun (or with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
set), it trains as cifar-train does with several processes, reusing
train_python.py's models, data reader, tensor loader and training loop:

- --batch-size is the GLOBAL batch: each rank takes batch / WORLD_SIZE per step;
- every rank draws the same (seed, epoch) shuffle as cifar-train and keeps every
  WORLD_SIZE-th entry from its rank, cut to an equal share (DistributedSampler's
  rule without padding; cifar-train's shard_plan);
- gloo on the CPU (NCCL on CUDA, one process per GPU, LOCAL_RANK picks it);
  DDP with 4 MiB gradient buckets (cifar-train's bucket size), BatchNorm buffers
  broadcast from rank 0 before each forward (DDP's default, as cifar-train);
- SGD with the given lr and momentum, constant learning rate, no augmentation;
- intra-op threads: --threads, else $OMP_NUM_THREADS (torchrun sets it to 1 when
  it starts several processes per node and it is unset).

Without WORLD_SIZE (or with 1) it trains in one process without DDP, exactly
as train_python.py --loader tensor.

Timing as in cifar-train: each rank times its own training epoch (evaluation
excluded); the images of all ranks are summed afterwards, and images/s is that
sum over rank 0's seconds (what cifar-train's rank 0 writes to metrics.csv).
Evaluation is split across the ranks and summed. Rank 0 prints ONE JSON line,
the same keys as train_python.py plus "world_size" and "threads".

Example (2 processes x 1 thread, global batch 256):
  OMP_NUM_THREADS=1 torchrun --nproc-per-node 2 scripts/bench/train_ddp.py \
      --data ../shared/cifar-10-batches-bin --batch-size 256 --lr 0.05
"""

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_python  # noqa: E402  (models, data, loader and training loop, shared)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=sorted(train_python.MODELS), default="net")
    parser.add_argument("--data", type=Path, required=True, help="CIFAR-10 binary folder")
    parser.add_argument("--device", default="cpu", help="cpu (gloo), or cuda (NCCL, cuda:LOCAL_RANK)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=256,
                        help="the GLOBAL batch; each rank takes batch / WORLD_SIZE")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op CPU threads per process (0: $OMP_NUM_THREADS, else torch's)")
    parser.add_argument("--amp", choices=["bf16", "off"], default="off")
    parser.add_argument("--channels-last", action="store_true")
    parser.add_argument("--train-limit", type=int, default=0,
                        help="first N training images only (0: all)")
    parser.add_argument("--eval-batch-size", type=int, default=1000)
    parser.add_argument("--bucket-mb", type=float, default=4.0,
                        help="DDP bucket_cap_mb (default 4, cifar-train's bucket size)")
    parser.add_argument("--dist-timeout", type=float, default=300, help="seconds")
    return parser.parse_args()


def intra_op_threads(args):
    if args.threads > 0:
        return args.threads
    try:
        return int(os.environ.get("OMP_NUM_THREADS", "0"))
    except ValueError:
        return 0


def main():
    args = parse_args()
    threads = intra_op_threads(args)
    if threads > 0:
        torch.set_num_threads(threads)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", str(rank)))
    if args.batch_size % world != 0:
        sys.exit(f"error: --batch-size {args.batch_size} is the global batch and must be a "
                 f"multiple of the {world} processes")
    local_batch = args.batch_size // world

    device = torch.device(args.device)
    if device.type == "cuda":
        device = torch.device("cuda", local_rank if world > 1 else (device.index or 0))
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = False  # as cifar-train's defaults
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    if world > 1:
        dist.init_process_group(
            "nccl" if device.type == "cuda" else "gloo",
            timeout=datetime.timedelta(seconds=args.dist_timeout),
            **({"device_id": device} if device.type == "cuda" else {}),
        )
    amp = args.amp == "bf16"

    # Data: every rank holds the whole split on its device, as cifar-train.
    train_images, train_labels = train_python.read_cifar10(args.data, train=True)
    if args.train_limit > 0:
        train_images = train_images[: args.train_limit]
        train_labels = train_labels[: args.train_limit]
    train_data = train_python.DeviceDataset(train_images, train_labels, device, args.channels_last)
    test_images, test_labels = train_python.read_cifar10(args.data, train=False)
    begin, end = len(test_labels) * rank // world, len(test_labels) * (rank + 1) // world
    test_data = train_python.DeviceDataset(test_images[begin:end], test_labels[begin:end], device,
                                           args.channels_last)

    def epoch_batches(epoch):
        order = train_python.epoch_order(len(train_data), args.seed, epoch, device)
        share = len(train_data) // world
        order = order[rank : share * world : world].contiguous()  # this rank's share
        return train_data.batches(order, local_batch)

    # Model and optimizer: the same start on every rank (DDP also broadcasts rank 0's).
    torch.manual_seed(args.seed)
    model = train_python.MODELS[args.model]().to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    trained = model
    if world > 1:
        trained = DistributedDataParallel(
            model,
            device_ids=[device.index] if device.type == "cuda" else None,
            bucket_cap_mb=args.bucket_mb,
            broadcast_buffers=True,
        )
    optimizer = torch.optim.SGD(trained.parameters(), lr=args.lr, momentum=args.momentum)

    epochs = []
    for epoch in range(1, args.epochs + 1):
        batches = epoch_batches(epoch)  # the shuffle is drawn here, untimed (as C++)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        train_python.synchronize(device)
        start = time.perf_counter()
        images, loss, accuracy = train_python.train_one_epoch(trained, optimizer, batches, device,
                                                              amp)
        train_python.synchronize(device)
        seconds = time.perf_counter() - start
        # The epoch's figures over all ranks (after the timer, as cifar-train).
        sums = torch.tensor([images, loss * images, accuracy * images], dtype=torch.float64,
                            device=device)
        if world > 1:
            dist.all_reduce(sums)
        images, loss_sum, correct = sums.tolist()
        epochs.append({
            "seconds": seconds,  # this rank's (rank 0's in the output)
            "images_per_second": images / seconds,  # all ranks' images
            "train_loss": loss_sum / images,
            "train_accuracy": correct / images,
            "peak_memory_bytes": (torch.cuda.max_memory_allocated(device)
                                  if device.type == "cuda" else 0),
        })

    test_loss, test_accuracy = train_python.evaluate(model, test_data, args.eval_batch_size,
                                                     device, amp)
    count = end - begin
    sums = torch.tensor([test_loss * count, test_accuracy * count, count], dtype=torch.float64,
                        device=device)
    if world > 1:
        dist.all_reduce(sums)
    loss_sum, correct, count = sums.tolist()
    if rank == 0:
        last = epochs[-1]
        print(json.dumps({
            "impl": "python-ddp" if world > 1 else "python",
            "loader": "tensor",
            "torch": torch.__version__,
            "world_size": world,
            "threads": torch.get_num_threads(),
            "global_batch": args.batch_size,
            "images_per_second": last["images_per_second"],  # last epoch
            "epoch_seconds": last["seconds"],  # last epoch
            "train_loss": last["train_loss"],  # last epoch
            "test_loss": loss_sum / count,  # after the last epoch
            "test_accuracy": correct / count,  # after the last epoch
            "peak_memory_bytes": last["peak_memory_bytes"],  # last epoch; 0 on the CPU
            "epochs": epochs,
        }), flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
