#!/usr/bin/env python3
"""run_bench.py: compare cifar-train (C++/LibTorch) with the same training in Python PyTorch.

For each case it runs cifar-train and scripts/bench/train_python.py with the
same model, data, hyper-parameters, seed and thread count, alternately
(C++, Python, C++, Python, ... for --reps rounds), so that drifts in machine
load hit both sides alike. From each run it takes the LAST training epoch:
cifar-train's last metrics.csv row and train_python.py's JSON line. It then
prints the machine, the torch version, every command it ran, and a markdown
table of medians over the rounds (also written to --out).

Peak memory: on a GPU, the caching allocator's peak during the last training
epoch (what both programs report); on the CPU, the peak resident set size of
the whole process (os.wait4), runtime and data included.

Usage (needs only the standard library; torch is used through --python):
  python3 scripts/bench/run_bench.py --reps 3
  python3 scripts/bench/run_bench.py --cases net-b256-cpu --reps 1 --train-limit 5000
"""

import argparse
import csv
import dataclasses
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRAIN_PYTHON = REPO / "scripts" / "bench" / "train_python.py"
CACHE_PYTHON = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "cifar-train" / "torch-2.11.0" / "bin" / "python"
)


@dataclasses.dataclass
class Variant:
    """One row of the table: an implementation and its extra flags."""

    label: str
    impl: str  # "cpp" or "python"
    flags: list


@dataclasses.dataclass
class Case:
    name: str
    model: str
    device: str
    batch_size: int
    lr: float
    epochs: int
    variants: list
    momentum: float = 0.9
    amp: str = "off"
    channels_last: bool = False

    @property
    def on_gpu(self):
        return self.device.startswith("cuda")


CASES = [
    Case("tutorial-cpu", "net", "cpu", batch_size=4, lr=0.001, epochs=1, variants=[
        Variant("C++", "cpp", []),
        Variant("Python, tutorial DataLoader", "python", ["--loader", "tutorial"]),
        Variant("Python, tensor loader", "python", ["--loader", "tensor"]),
    ]),
    Case("net-b256-cpu", "net", "cpu", batch_size=256, lr=0.05, epochs=1, variants=[
        Variant("C++", "cpp", []),
        Variant("Python, tensor loader", "python", ["--loader", "tensor"]),
    ]),
    # Two epochs: the last one, which is measured, runs warm.
    Case("resnet18-b512-bf16-gpu", "resnet18", "cuda", batch_size=512, lr=0.1, epochs=2,
         amp="bf16", channels_last=True, variants=[
             Variant("C++", "cpp", []),
             Variant("Python, tensor loader", "python", ["--loader", "tensor"]),
         ]),
    Case("net-b4-gpu", "net", "cuda", batch_size=4, lr=0.001, epochs=1, variants=[
        Variant("C++ --cuda-graph", "cpp", ["--cuda-graph"]),
        Variant("C++ eager", "cpp", []),
        Variant("Python eager, tensor loader", "python", ["--loader", "tensor"]),
    ]),
]
CASES_BY_NAME = {case.name: case for case in CASES}


@dataclasses.dataclass
class Result:
    images_per_second: float
    epoch_seconds: float
    test_accuracy: float
    peak_memory_bytes: int


# --- Environment ---------------------------------------------------------------


def default_data_dir():
    if os.environ.get("CIFAR10_DIR"):
        return Path(os.environ["CIFAR10_DIR"])
    shared = REPO.parent / "shared" / "cifar-10-batches-bin"
    return shared if shared.is_dir() else REPO / "data" / "cifar-10-batches-bin"


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def probe_python(python):
    """torch version and GPU of `python`, as a dict."""
    code = (
        "import json, torch\n"
        "gpu = torch.cuda.is_available()\n"
        "print(json.dumps({'torch': torch.__version__, 'cuda': gpu,\n"
        "                  'gpu': torch.cuda.get_device_name(0) if gpu else None}))\n"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: {python} cannot import torch:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- Running -------------------------------------------------------------------


def command_for(case, variant, args, run_dir):
    """The exact command line of one run; cifar-train writes into run_dir."""
    epochs = args.epochs or case.epochs
    if variant.impl == "cpp":
        command = [
            str(args.cpp), "--model", case.model, "--data", str(args.data),
            "--device", case.device, "--epochs", str(epochs),
            "--batch-size", str(case.batch_size), "--lr", str(case.lr),
            "--momentum", str(case.momentum), "--schedule", "constant", "--seed", "0",
            "--threads", str(args.threads), "--amp", case.amp, "--no-augment",
            "--train-limit", str(args.train_limit), "--eval-batch-size", "1000",
            "--run-dir", str(run_dir / "run"), "--checkpoint", str(run_dir / "model.pt"), "-q",
        ]
    else:
        command = [
            str(args.python), str(TRAIN_PYTHON), "--model", case.model, "--data", str(args.data),
            "--device", case.device, "--epochs", str(epochs),
            "--batch-size", str(case.batch_size), "--lr", str(case.lr),
            "--momentum", str(case.momentum), "--seed", "0",
            "--threads", str(args.threads), "--amp", case.amp,
            "--train-limit", str(args.train_limit), "--eval-batch-size", "1000",
        ]
    if case.channels_last:
        command.append("--channels-last")
    return command + variant.flags


def run_measured(command):
    """Runs `command`; returns (exit code, stdout, stderr, peak RSS in bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    return process.returncode, stdout, stderr, usage.ru_maxrss * 1024  # ru_maxrss is in KiB


def parse_result(case, variant, stdout, run_dir, peak_rss):
    if variant.impl == "cpp":
        with open(run_dir / "run" / "metrics.csv", newline="") as f:
            row = list(csv.DictReader(f))[-1]
        result = Result(float(row["images_per_second"]), float(row["seconds"]),
                        float(row["test_accuracy"]), int(row["peak_memory_bytes"]))
    else:
        line = [text for text in stdout.splitlines() if text.startswith("{")][-1]
        data = json.loads(line)
        result = Result(data["images_per_second"], data["epoch_seconds"],
                        data["test_accuracy"], data["peak_memory_bytes"])
    if case.on_gpu and result.peak_memory_bytes == 0:
        raise RuntimeError("it reported no GPU memory: did it fall back to the CPU?")
    if not case.on_gpu:
        result.peak_memory_bytes = peak_rss
    return result


def run_once(case, variant, args):
    """One run of one variant; returns (Result or None, the command)."""
    with tempfile.TemporaryDirectory(prefix="cifar-bench-") as tmp:
        run_dir = Path(tmp)
        command = command_for(case, variant, args, run_dir)
        print(f"$ {shlex.join(command)}", flush=True)
        code, stdout, stderr, peak_rss = run_measured(command)
        try:
            if code != 0:
                raise RuntimeError(f"exit status {code}")
            return parse_result(case, variant, stdout, run_dir, peak_rss), command
        except (RuntimeError, OSError, IndexError, KeyError, ValueError) as e:
            tail = "\n".join(stderr.strip().splitlines()[-15:])
            print(f"  FAILED: {e}\n{tail}", file=sys.stderr, flush=True)
            return None, command


# --- Report --------------------------------------------------------------------


def format_memory(nbytes, on_gpu):
    kind = "GPU" if on_gpu else "RSS"
    if nbytes >= 1 << 30:
        return f"{nbytes / (1 << 30):.2f} GiB {kind}"
    return f"{nbytes / (1 << 20):.0f} MiB {kind}"


def table(rows):
    """rows: (case, variant, [Result]) in order; returns the markdown table."""
    python_speed = {}  # case name -> [(label, median img/s)]
    for case, variant, results in rows:
        if variant.impl == "python" and results:
            speed = statistics.median(r.images_per_second for r in results)
            python_speed.setdefault(case.name, []).append((variant.label, speed))
    lines = [
        "| case | impl | median img/s | median epoch s | test acc | peak mem | C++/Python |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for case, variant, results in rows:
        if not results:
            lines.append(f"| {case.name} | {variant.label} | failed | | | | |")
            continue
        speed = statistics.median(r.images_per_second for r in results)
        seconds = statistics.median(r.epoch_seconds for r in results)
        accuracy = statistics.median(r.test_accuracy for r in results)
        memory = statistics.median(r.peak_memory_bytes for r in results)
        ratio = ""
        if variant.impl == "cpp":
            ratios = [(label, speed / other) for label, other in python_speed.get(case.name, [])]
            if len(ratios) == 1:
                ratio = f"{ratios[0][1]:.2f}x"
            else:
                ratio = "; ".join(f"{r:.2f}x vs {label}" for label, r in ratios)
        lines.append(
            f"| {case.name} | {variant.label} | {speed:,.0f} | {seconds:.2f} | {accuracy:.4f} "
            f"| {format_memory(int(memory), case.on_gpu)} | {ratio} |"
        )
    return "\n".join(lines)


# --- Main ----------------------------------------------------------------------


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="comma-separated, from: " + ", ".join(CASES_BY_NAME)
                        + " (default: the CPU cases, and the GPU ones too when there is a GPU)")
    parser.add_argument("--cpp", type=Path,
                        default=REPO / "build" / "release" / "apps" / "cifar-train")
    parser.add_argument("--python", type=Path,
                        default=CACHE_PYTHON if CACHE_PYTHON.exists() else Path(sys.executable),
                        help="a Python that imports torch (default: the cifar-train cache venv's)")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--reps", type=int, default=3, help="rounds of C++, Python runs per case")
    parser.add_argument("--epochs", type=int, default=0, help="epochs per run (0: each case's own)")
    parser.add_argument("--train-limit", type=int, default=0,
                        help="train on the first N images only, for quick runs (0: all 50000)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="intra-op CPU threads, for both (default: all cores)")
    parser.add_argument("--out", type=Path, help="also write the report here, as markdown")
    return parser.parse_args()


def main():
    args = parse_args()
    if not args.cpp.is_file():
        sys.exit(f"error: no cifar-train at {args.cpp}: build it or pass --cpp")
    if not (args.data / "test_batch.bin").is_file():
        sys.exit(f"error: no CIFAR-10 binary files in {args.data}: pass --data or set CIFAR10_DIR")
    env = probe_python(args.python)
    if args.cases:
        names = [name.strip() for name in args.cases.split(",") if name.strip()]
        unknown = [name for name in names if name not in CASES_BY_NAME]
        if unknown:
            sys.exit(f"error: unknown case {', '.join(unknown)}: "
                     f"choose from {', '.join(CASES_BY_NAME)}")
        cases = [CASES_BY_NAME[name] for name in names]
    else:
        cases = [case for case in CASES if env["cuda"] or not case.on_gpu]
    if any(case.on_gpu for case in cases) and not env["cuda"]:
        sys.exit("error: GPU cases asked for, but torch.cuda.is_available() is false in "
                 f"{args.python}")

    load = os.getloadavg()[0]
    cpp_version = subprocess.run([str(args.cpp), "--version"], capture_output=True, text=True)
    header = [
        f"- Machine: {cpu_model()}, {os.cpu_count()} cores"
        + (f"; GPU: {env['gpu']}" if env["gpu"] else "; no GPU"),
        f"- C++: {args.cpp} ({cpp_version.stdout.strip()})",
        f"- Python: {args.python} (torch {env['torch']})",
        f"- Threads: {args.threads}; reps: {args.reps}; train images: "
        + (str(args.train_limit) if args.train_limit else "all 50000")
        + "; epochs: " + (str(args.epochs) if args.epochs else "per case"),
        f"- Data: {args.data}; load average at start: {load:.2f}",
    ]
    print("\n".join(header), flush=True)
    if load > 0.5:
        print("warning: the machine is busy; CPU timings with --threads at all cores can swing "
              "tenfold when other work takes cores (OpenMP threads wait on each other)",
              file=sys.stderr, flush=True)

    rows = []  # (case, variant, [Result]), in table order
    commands = {}
    for case in cases:
        case_rows = [(case, variant, []) for variant in case.variants]
        rows += case_rows
        for rep in range(1, args.reps + 1):
            for _, variant, results in case_rows:
                print(f"[{case.name}] round {rep}/{args.reps}: {variant.label}", flush=True)
                result, command = run_once(case, variant, args)
                commands[(case.name, variant.label)] = command
                if result:
                    results.append(result)
                    print(f"  {result.images_per_second:,.0f} img/s, {result.epoch_seconds:.2f} s, "
                          f"test acc {result.test_accuracy:.4f}", flush=True)

    report = "\n".join(header) + "\n\n" + table(rows) + "\n"
    report += (
        "\nimg/s and epoch s: the last training epoch of each run (evaluation excluded), median "
        "over the rounds. Peak mem: GPU allocator peak in that epoch, or the process's peak RSS "
        "on the CPU. C++/Python: C++ img/s over Python img/s.\n"
    )
    report += "\nCommands (temporary folders vary per run):\n\n```\n"
    report += "\n".join(shlex.join(command) for command in commands.values()) + "\n```\n"
    print("\n" + report)
    if args.out:
        args.out.write_text(report)
        print(f"report written to {args.out}")
    failed = any(len(results) < args.reps for _, _, results in rows)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
