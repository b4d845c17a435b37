#!/usr/bin/env python3
"""bench_airbench.py: a cifar-train recipe (airbench94, speedrun) against the Python reference.

Runs, one after the other on the same machine and data, the Python reference
(airbench_reference.py: airbench94_muon on the CPU, at each --ref-precision)
and `cifar-train --config CONFIG` (configs/airbench94.toml unless --config
says) for each --seeds, then prints the machine, every command, and a table
of TTA test accuracy, wall time, training GFLOP/s (0.709 GFLOP per 32 px
training image, the network's forward + backward, times (size/32)^2 for an
epoch of a resolution schedule) and the ratios of cifar-train's time to the
reference's. With --pairs, the reference runs once before each seed of
cifar-train (seed k beside reference seed k), so that both see the same
drift of the machine; the ratio is then each pair's own.

Times: the reference's wall time covers whitening, training and TTA
evaluation (as it reports); cifar-train's covers its whole process (start,
data read and checks included), so the comparison errs against cifar-train.
cifar-train runs without --threads, as the README's command does (the thread
rule chooses; the table's last lines say the count and any change the
machine's load brought), unless --tool-threads N fixes the count.

  python3 scripts/bench/bench_airbench.py --seeds 0,1,2 --ref-precision bf16
  python3 scripts/bench/bench_airbench.py --seeds 0 --ref-precision bf16,fp32 --out airbench.md
  python3 scripts/bench/bench_airbench.py --seeds 0 --ref-precision none --epochs 1   # quick
  python3 scripts/bench/bench_airbench.py --config configs/speedrun.toml --seeds 0,1,2 --pairs
"""

import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import machine_header  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CACHE_PYTHON = (Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                / "cifar-train" / "torch-2.11.0" / "bin" / "python")
GFLOP_PER_IMAGE = 0.709  # airbench94's forward + backward, per training image
IMAGES_PER_EPOCH = 25 * 2000  # 50,000 images in batches of 2000, last partial batch dropped


def run(command, env=None):
    print("$ " + " ".join(shlex.quote(str(c)) for c in command), flush=True)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done, wall


def run_reference(args, precision, seed):
    command = [args.python, REPO / "scripts/bench/airbench_reference.py", "--data", args.data,
               "--precision", precision, "--threads", str(args.threads), "--seed", str(seed),
               "--epochs", str(args.epochs)]
    done, process_wall = run(command)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    train_images = result["steps"] * 2000
    return {"who": f"reference {precision}", "seed": seed, "accuracy": result["tta_accuracy"],
            "wall": result["wall_seconds"], "process_wall": process_wall,
            "train_seconds": None, "train_images": train_images,
            "cpu": f'{result["user_seconds"]:.0f} user, {result["system_seconds"]:.0f} sys'}


def epoch_scales(config, epochs):
    """Each epoch's FLOPs against a 32 px epoch: (size / 32)^2 under a resolution schedule."""
    text = ""
    for line in Path(config).read_text().splitlines():
        if line.split("=")[0].strip() == "resolution-schedule":
            text = line.split("=", 1)[1].split("#")[0].strip().strip('"')
    sizes = []
    for item in [i for i in text.split(",") if i]:
        size, _, repeat = item.partition("x")
        sizes += [int(size)] * int(repeat or 1)
    return [(sizes[e] / 32) ** 2 if e < len(sizes) else 1.0 for e in range(epochs)]


def run_tool(args, seed):
    run_dir = Path(tempfile.mkdtemp(prefix="airbench-"))
    command = [args.cpp, "--config", args.config, "--device", "cpu",
               "--data", args.data, "--seed", str(seed),
               "--epochs", str(int(args.epochs)), "--eval-every", str(int(args.epochs)),
               "--run-dir", run_dir, "--checkpoint", run_dir / "airbench94.pt",
               "--no-tensorboard"]
    if args.tool_threads != "auto":  # auto: the README's command, the thread rule picks
        command += ["--threads", args.tool_threads]
    env = dict(os.environ, CIFAR10_DIR="")
    before = os.times()
    done, wall = run(command, env)
    after = os.times()
    rows = list(csv.DictReader(open(run_dir / "metrics.csv")))
    train_seconds = sum(float(r["seconds"]) for r in rows)
    scales = epoch_scales(args.config, len(rows))
    log = (done.stdout + done.stderr).splitlines()
    threads = [line.split("device: ", 1)[1] for line in log if "device: cpu" in line]
    threads += [line.split("threads: ", 1)[1] for line in log if " -> " in line and "threads: " in line]
    return {"threads": "; ".join(threads) or "not logged",
            "who": "cifar-train", "seed": seed, "accuracy": float(rows[-1]["test_accuracy"]),
            "wall": wall, "process_wall": wall, "train_seconds": train_seconds,
            "train_images": IMAGES_PER_EPOCH * sum(scales),  # 32 px equivalents
            "cpu": f"{after.children_user - before.children_user:.0f} user, "
                   f"{after.children_system - before.children_system:.0f} sys"}


def table(rows, args):
    refs = [r for r in rows if r["who"].startswith("reference")]
    best_ref = min((r["wall"] for r in refs), default=None)
    paired = args.pairs and refs
    # With --pairs each cifar-train run is compared with the reference run just before it.
    last_ref = None
    lines = ["| run | seed | TTA test accuracy | wall s | train GFLOP/s | CPU s | wall / "
             + ("its pair's reference |" if paired else "best reference |"),
             "|---|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        seconds = r["train_seconds"] or r["wall"]
        gflops = GFLOP_PER_IMAGE * r["train_images"] / seconds
        if r["who"].startswith("reference"):
            last_ref = r
        base = (last_ref["wall"] if paired and last_ref else best_ref)
        r["ratio"] = r["wall"] / base if base else None
        ratio = f'{r["ratio"]:.3f}' if base else "-"
        lines.append(f'| {r["who"]} | {r["seed"]} | {100 * r["accuracy"]:.2f}% | {r["wall"]:.0f} '
                     f'| {gflops:.0f} | {r["cpu"]} | {ratio} |')
    tool = [r for r in rows if r["who"] == "cifar-train"]
    if tool:
        accs = [r["accuracy"] for r in tool]
        walls = [r["wall"] for r in tool]
        lines.append("")
        summary = (f"cifar-train over {len(tool)} seed(s): mean TTA accuracy "
                   f"{100 * statistics.mean(accs):.2f}%, mean wall {statistics.mean(walls):.0f} s")
        if paired:
            ref_accs = [r["accuracy"] for r in refs]
            pair_ratios = ", ".join(f'{r["ratio"]:.3f}' for r in tool)
            summary += (f"; the reference over {len(refs)}: mean TTA accuracy "
                        f"{100 * statistics.mean(ref_accs):.2f}%, mean wall "
                        f"{statistics.mean(r['wall'] for r in refs):.0f} s; "
                        f"wall ratio {sum(walls) / sum(r['wall'] for r in refs):.3f}x "
                        f"(pairs: {pair_ratios})")
        elif best_ref:
            summary += f", {statistics.mean(walls) / best_ref:.3f}x the best reference"
        lines.append(summary)
    for r in tool:
        lines.append(f'seed {r["seed"]}: threads: {r["threads"]}')
    lines.append("(reference GFLOP/s: over its whole wall time, TTA included; cifar-train's: "
                 "over its training epochs, 32 px equivalents)")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default=str(REPO / "configs/airbench94.toml"),
                        help="the cifar-train recipe to run (default: configs/airbench94.toml)")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--pairs", action="store_true",
                        help="run the reference (the first --ref-precision) before each seed, "
                             "with the seed's number, instead of once with --ref-seed")
    parser.add_argument("--ref-precision", default="bf16",
                        help="comma-separated: bf16, fp32; or none")
    parser.add_argument("--ref-seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="the reference's thread count (default: the cores)")
    parser.add_argument("--tool-threads", default="auto",
                        help="cifar-train's --threads; auto (default) leaves it out, as the "
                             "README's command does, so the thread rule chooses")
    parser.add_argument("--epochs", type=float, default=8)
    parser.add_argument("--data", default=os.environ.get("CIFAR10_DIR") or
                        str(REPO.parent / "shared" / "cifar-10-batches-bin"))
    parser.add_argument("--cpp", default=str(REPO / "build/release/apps/cifar-train"))
    parser.add_argument("--python", default=str(CACHE_PYTHON))
    parser.add_argument("--out")
    args = parser.parse_args()
    print("\n".join(machine_header()), flush=True)
    rows = []
    precisions = [p for p in args.ref_precision.split(",") if p and p != "none"]
    seeds = [int(s) for s in args.seeds.split(",") if s]
    if args.pairs and precisions:
        for seed in seeds:
            rows.append(run_reference(args, precisions[0], seed))
            print(json.dumps(rows[-1]), flush=True)
            rows.append(run_tool(args, seed))
            print(json.dumps(rows[-1]), flush=True)
    else:
        for precision in precisions:
            rows.append(run_reference(args, precision, args.ref_seed))
            print(json.dumps(rows[-1]), flush=True)
        for seed in seeds:
            rows.append(run_tool(args, seed))
            print(json.dumps(rows[-1]), flush=True)
    report = table(rows, args)
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n")


if __name__ == "__main__":
    main()
