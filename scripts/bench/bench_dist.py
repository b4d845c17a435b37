#!/usr/bin/env python3
"""bench_dist.py: data-parallel training on one machine's CPU cores, cifar-train against Python DDP.

Four variants, the same training (Net, global batch 256, lr 0.05, momentum 0.9,
constant schedule, no augmentation, seed 0, 1 epoch, tensor loader), run
alternately for --reps rounds so that drifts in machine load hit all alike:

  C++ 1 x T        cifar-train, one process, T threads (T: --threads, all cores)
  C++ P x T/P      cifar-train under torchrun --nproc-per-node P, T/P threads each
  Python 1 x T     train_python.py --loader tensor, one process, T threads
  Python P x T/P   train_ddp.py (DistributedDataParallel, gloo) under torchrun, T/P threads each

Every run gets OMP_NUM_THREADS and --threads for its per-process thread count.
From each run it takes the LAST training epoch (evaluation excluded): the last
row of cifar-train's metrics.csv (rank 0's; images of all ranks over rank 0's
epoch seconds) or the JSON line of the Python scripts (the same definition).
It prints the machine (CPU model, load average), every command, a markdown
table of medians, and the issue's two targets with PASS/MISS:

  C++ P processes / C++ 1 process        >= 0.90 (the exchange for Net's 62k parameters is small)
  C++ P processes / Python DDP P procs   >= 1.2

Usage (standard library only; torch is used through --python and torchrun):
  python3 scripts/bench/bench_dist.py --reps 3 --out dist.md
  python3 scripts/bench/bench_dist.py --reps 1 --train-limit 5000     # a quick check
"""

import argparse
import csv
import dataclasses
import datetime
import json
import os
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import (  # noqa: E402  (shared helpers of the single-process benchmark)
    CACHE_PYTHON, REPO, TRAIN_PYTHON, cpu_model, default_data_dir, probe_python)

TRAIN_DDP = REPO / "scripts" / "bench" / "train_ddp.py"
TARGET_SCALING = 0.90  # C++ P processes / C++ 1 process
TARGET_VS_PYTHON = 1.2  # C++ P processes / Python DDP P processes


@dataclasses.dataclass
class Variant:
    key: str  # cpp1, cppN, py1, pyN
    label: str
    impl: str  # "cpp" or "python"
    procs: int
    threads: int  # per process


@dataclasses.dataclass
class Result:
    images_per_second: float
    epoch_seconds: float
    test_accuracy: float


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command_for(variant, args, run_dir):
    """(command, environment) of one run; cifar-train writes into run_dir."""
    common = ["--model", args.model, "--data", str(args.data), "--epochs", str(args.epochs),
              "--batch-size", str(args.batch_size), "--lr", str(args.lr), "--momentum", "0.9",
              "--seed", "0", "--threads", str(variant.threads),
              "--train-limit", str(args.train_limit), "--eval-batch-size", "1000"]
    if variant.impl == "cpp":
        program = [str(args.cpp), "--device", "cpu", *common, "--schedule", "constant",
                   "--amp", "off", "--no-augment", "--no-tensorboard",
                   "--run-dir", str(run_dir / "run"), "--checkpoint", str(run_dir / "model.pt"),
                   "-q"]
    elif variant.procs == 1:
        program = [str(args.python), str(TRAIN_PYTHON), "--device", "cpu", *common,
                   "--amp", "off", "--loader", "tensor"]
    else:
        program = [str(args.python), "-u", str(TRAIN_DDP), "--device", "cpu", *common,
                   "--amp", "off"]
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
    env["OMP_NUM_THREADS"] = str(variant.threads)
    if variant.procs == 1:
        return program, env
    launcher = [str(args.torchrun), "--no-python", "--nproc-per-node", str(variant.procs),
                "--master-addr", "127.0.0.1", "--master-port", str(free_port())]
    return launcher + program, env


def parse_result(variant, stdout, run_dir):
    if variant.impl == "cpp":
        with open(run_dir / "run" / "metrics.csv", newline="") as f:
            row = list(csv.DictReader(f))[-1]
        return Result(float(row["images_per_second"]), float(row["seconds"]),
                      float(row["test_accuracy"]))
    data = json.loads([line for line in stdout.splitlines() if line.startswith("{")][-1])
    if data.get("world_size", 1) != variant.procs:
        raise RuntimeError(f"it ran with world size {data.get('world_size')}, not {variant.procs}")
    return Result(data["images_per_second"], data["epoch_seconds"], data["test_accuracy"])


def run_once(variant, args):
    """One run; returns (Result or None, the command)."""
    with tempfile.TemporaryDirectory(prefix="cifar-bench-dist-") as tmp:
        run_dir = Path(tmp)
        command, env = command_for(variant, args, run_dir)
        print(f"$ OMP_NUM_THREADS={env['OMP_NUM_THREADS']} {shlex.join(command)}", flush=True)
        done = subprocess.run(command, env=env, capture_output=True, text=True, errors="replace")
        try:
            if done.returncode != 0:
                raise RuntimeError(f"exit status {done.returncode}")
            return parse_result(variant, done.stdout, run_dir), command
        except (RuntimeError, OSError, IndexError, KeyError, ValueError) as e:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            print(f"  FAILED: {e}\n{tail}", file=sys.stderr, flush=True)
            return None, command


def median_speed(results):
    return statistics.median(r.images_per_second for r in results) if results else None


def report(variants, results):
    lines = [
        "| variant | processes x threads | median img/s | median epoch s | test acc | runs |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for v in variants:
        rs = results[v.key]
        if not rs:
            lines.append(f"| {v.label} | {v.procs} x {v.threads} | failed | | | 0 |")
            continue
        lines.append(
            f"| {v.label} | {v.procs} x {v.threads} | {median_speed(rs):,.0f} "
            f"| {statistics.median(r.epoch_seconds for r in rs):.2f} "
            f"| {statistics.median(r.test_accuracy for r in rs):.4f} | {len(rs)} |")
    speed = {v.key: median_speed(results[v.key]) for v in variants}
    procs = variants[1].procs

    def ratio_row(what, num, den, target):
        goal = f">= {target:.2f}" if target else ""
        if speed[num] is None or speed[den] is None:
            return f"| {what} | not measured | {goal} | {'MISS' if target else ''} (a run failed) |"
        value = speed[num] / speed[den]
        verdict = "**PASS**" if target and value >= target else "**MISS**" if target else "(info)"
        return f"| {what} | {value:.2f}x | {goal} | {verdict} |"

    lines += [
        "",
        "| ratio | measured | target | result |",
        "|---|---:|---:|---|",
        ratio_row(f"C++ {procs} processes / C++ 1 process", "cppN", "cpp1", TARGET_SCALING),
        ratio_row(f"C++ {procs} processes / Python DDP {procs} processes", "cppN", "pyN",
                  TARGET_VS_PYTHON),
        ratio_row(f"Python DDP {procs} processes / Python 1 process", "pyN", "py1", None),
        ratio_row("C++ 1 process / Python 1 process", "cpp1", "py1", None),
    ]
    return "\n".join(lines)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpp", type=Path,
                        default=REPO / "build" / "release" / "apps" / "cifar-train")
    parser.add_argument("--python", type=Path,
                        default=CACHE_PYTHON if CACHE_PYTHON.exists() else Path(sys.executable),
                        help="a Python that imports torch (default: the cifar-train cache venv's)")
    parser.add_argument("--torchrun", type=Path,
                        help="default: the torchrun beside --python")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--reps", type=int, default=3, help="rounds of the four variants")
    parser.add_argument("--nproc", type=int, default=2, help="processes of the data-parallel runs")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="threads in all (default: all cores); each of the --nproc "
                             "processes gets threads / nproc")
    parser.add_argument("--model", choices=["net", "resnet18"], default="net")
    parser.add_argument("--batch-size", type=int, default=256, help="the global batch")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--train-limit", type=int, default=0,
                        help="train on the first N images only, for quick runs (0: all 50000)")
    parser.add_argument("--out", type=Path, help="also write the report here, as markdown")
    args = parser.parse_args()
    args.torchrun = args.torchrun or args.python.parent / "torchrun"
    if args.nproc < 2 or args.batch_size % args.nproc:
        parser.error(f"--nproc must be at least 2 and divide --batch-size {args.batch_size}")
    return args


def main():
    args = parse_args()
    for path, what in ((args.cpp, "cifar-train (build it or pass --cpp)"),
                       (args.torchrun, "torchrun (pass --torchrun)")):
        if not path.is_file():
            sys.exit(f"error: no {what} at {path}")
    if not (args.data / "test_batch.bin").is_file():
        sys.exit(f"error: no CIFAR-10 binary files in {args.data}: pass --data or set CIFAR10_DIR")
    env = probe_python(args.python)
    per_proc = max(1, args.threads // args.nproc)
    n = args.nproc
    variants = [
        Variant("cpp1", "C++", "cpp", 1, args.threads),
        Variant("cppN", "C++ (torchrun, gloo)", "cpp", n, per_proc),
        Variant("py1", "Python, tensor loader", "python", 1, args.threads),
        Variant("pyN", "Python DDP (torchrun, gloo)", "python", n, per_proc),
    ]

    load = os.getloadavg()
    cpp_version = subprocess.run([str(args.cpp), "--version"], capture_output=True, text=True)
    header = [
        f"- Date: {datetime.datetime.now().isoformat(timespec='minutes')}",
        f"- Machine: {cpu_model()}, {os.cpu_count()} cores"
        + (f"; GPU: {env['gpu']} (not used)" if env["gpu"] else "; no GPU"),
        f"- Load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)",
        f"- C++: {args.cpp} ({cpp_version.stdout.strip()})",
        f"- Python: {args.python} (torch {env['torch']}); torchrun: {args.torchrun}",
        f"- {args.model}, global batch {args.batch_size}, lr {args.lr}, {args.epochs} epoch(s), "
        f"train images: {args.train_limit or 'all 50000'}; reps: {args.reps}",
    ]
    print("\n".join(header), flush=True)
    if load[0] > 0.5:
        print("warning: the machine is busy; with every core in use, CPU timings swing widely "
              "when other work takes a core", file=sys.stderr, flush=True)

    results = {v.key: [] for v in variants}
    commands = {}
    for rep in range(1, args.reps + 1):
        for v in variants:
            print(f"[round {rep}/{args.reps}] {v.label}, {v.procs} x {v.threads}", flush=True)
            result, commands[v.key] = run_once(v, args)
            if result:
                results[v.key].append(result)
                print(f"  {result.images_per_second:,.0f} img/s, {result.epoch_seconds:.2f} s, "
                      f"test acc {result.test_accuracy:.4f}", flush=True)

    text = "\n".join(header) + "\n\n" + report(variants, results) + "\n"
    text += (
        "\nimg/s and epoch s: the last training epoch (evaluation excluded), median over the "
        "rounds; with several processes, the images of all ranks over rank 0's epoch seconds. "
        f"Every process runs with OMP_NUM_THREADS and --threads set to its thread count.\n"
        "\nCommands (temporary folders and ports vary per run):\n\n```\n"
        + "\n".join(f"OMP_NUM_THREADS={v.threads} {shlex.join(commands[v.key])}"
                    for v in variants if v.key in commands)
        + "\n```\n")
    print("\n" + text)
    if args.out:
        args.out.write_text(text)
        print(f"report written to {args.out}")
    sys.exit(1 if any(len(rs) < args.reps for rs in results.values()) else 0)


if __name__ == "__main__":
    main()
