#!/usr/bin/env python3
"""run_bench.py: compare cifar-train (C++/LibTorch) with the same training in Python PyTorch.

For each case it runs cifar-train and scripts/bench/train_python.py with the
same model, data, hyper-parameters, seed and thread count, alternately
(C++, Python, C++, Python, ... for --reps rounds), so that drifts in machine
load hit both sides alike. From each run it takes the LAST training epoch:
cifar-train's last metrics.csv row and train_python.py's JSON line. It then
prints the machine (CPU model, kernel-relevant CPU flags, cores, load average),
the torch version, every command it ran, and a markdown table of medians over
the rounds (also written to --out).

The busy-machine cases (busy-b4-cpu, busy-b256-cpu; issue 12) time cifar-train's
default CPU plan (no --threads, no OMP_NUM_THREADS) idle and with one process
spinning on one core beside it (started and always killed by this script), and
Python at 1 thread and at --threads under the same load. Idle and busy runs
alternate, in the reverse order every other round (ABBA), so drifts hit both.
The report adds the fraction of idle throughput kept and the targets with
PASS/MISS: kept >= 0.70 at batch 4 and at batch 256, and C++ busy ahead of
Python's best busy thread count.

Peak memory: on a GPU, the caching allocator's peak during the last training
epoch (what both programs report); on the CPU, the peak resident set size of
the whole process (os.wait4), runtime and data included.

Usage (needs only the standard library; torch is used through --python):
  python3 scripts/bench/run_bench.py --reps 3
  python3 scripts/bench/run_bench.py --cases net-b256-cpu --reps 1 --train-limit 5000
  python3 scripts/bench/run_bench.py --cases busy-b4-cpu,busy-b256-cpu --reps 5
"""

import argparse
import csv
import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# cpu_model is imported here for bench_dist.py, which takes it from this module.
from bench_cases import CASES, CASES_BY_NAME, Result  # noqa: E402
from bench_common import (  # noqa: E402,F401
    BusyLoop, cpu_model, die_with_parent, machine_header)
from bench_report import busy_summary, label_of, table  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TRAIN_PYTHON = REPO / "scripts" / "bench" / "train_python.py"
CACHE_PYTHON = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "cifar-train" / "torch-2.11.0" / "bin" / "python"
)


# --- Environment ---------------------------------------------------------------


def default_data_dir():
    if os.environ.get("CIFAR10_DIR"):
        return Path(os.environ["CIFAR10_DIR"])
    shared = REPO.parent / "shared" / "cifar-10-batches-bin"
    return shared if shared.is_dir() else REPO / "data" / "cifar-10-batches-bin"


def probe_python(python):
    """torch version and GPU of `python`, as a dict."""
    code = (
        "import json, torch\n"
        "gpu = torch.cuda.is_available()\n"
        "cap = getattr(torch.backends.cpu, 'get_cpu_capability', lambda: None)()\n"
        "print(json.dumps({'torch': torch.__version__, 'cuda': gpu, 'cpu_capability': cap,\n"
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
    threads = args.threads if variant.threads is None else variant.threads
    threads_flag = ["--threads", str(threads)] if threads else []
    if variant.impl == "cpp":
        command = [
            str(args.cpp), "--model", case.model, "--data", str(args.data),
            "--device", case.device, "--epochs", str(epochs),
            "--batch-size", str(case.batch_size), "--lr", str(case.lr),
            "--momentum", str(case.momentum), "--schedule", "constant", "--seed", "0",
            *threads_flag, "--amp", case.amp, "--no-augment",
            "--train-limit", str(args.train_limit), "--eval-batch-size", "1000",
            "--run-dir", str(run_dir / "run"), "--checkpoint", str(run_dir / "model.pt"),
        ]
        # Its own thread choice is logged at info level: keep the log to read it.
        command += [] if variant.threads == 0 else ["-q"]
    else:
        command = [
            str(args.python), str(TRAIN_PYTHON), "--model", case.model, "--data", str(args.data),
            "--device", case.device, "--epochs", str(epochs),
            "--batch-size", str(case.batch_size), "--lr", str(case.lr),
            "--momentum", str(case.momentum), "--seed", "0",
            *threads_flag, "--amp", case.amp,
            "--train-limit", str(args.train_limit), "--eval-batch-size", "1000",
        ]
    if case.channels_last:
        command.append("--channels-last")
    return command + variant.flags


def run_measured(command, env=None):
    """Runs `command`; returns (exit code, stdout, stderr, peak RSS in bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env,
                                   preexec_fn=die_with_parent)
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C, SIGTERM: do not leave the run behind
            process.kill()
            process.wait()
            raise
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    return process.returncode, stdout, stderr, usage.ru_maxrss * 1024  # ru_maxrss is in KiB


def parse_result(case, variant, stdout, stderr, run_dir, peak_rss):
    if variant.impl == "cpp":
        with open(run_dir / "run" / "metrics.csv", newline="") as f:
            row = list(csv.DictReader(f))[-1]
        result = Result(float(row["images_per_second"]), float(row["seconds"]),
                        float(row["test_accuracy"]), int(row["peak_memory_bytes"] or 0))
        # The thread rule's last count when the load changed it, else the planned count.
        moved = re.findall(r"threads: \d+ -> (\d+) at", stdout + stderr)
        chosen = re.search(r"device: cpu, (\d+) threads?", stdout + stderr)
        result.threads = int(moved[-1]) if moved else int(chosen.group(1)) if chosen else 0
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


def run_once(case, variant, args, busy=None):
    """One run of one variant; returns (Result or None, the command)."""
    env = None
    if case.busy:  # the programs' own default: no thread count from the environment either
        env = {key: value for key, value in os.environ.items()
               if key not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    with tempfile.TemporaryDirectory(prefix="cifar-bench-") as tmp:
        run_dir = Path(tmp)
        command = command_for(case, variant, args, run_dir)
        beside = f"   # beside {busy.count} busy" if variant.busy else ""
        print(f"$ {shlex.join(command)}{beside}", flush=True)
        code, stdout, stderr, peak_rss = run_measured(command, env)
        try:
            if code != 0:
                raise RuntimeError(f"exit status {code}")
            if variant.busy and not busy.alive():
                raise RuntimeError("a busy-loop process died during the run")
            return parse_result(case, variant, stdout, stderr, run_dir, peak_rss), command
        except (RuntimeError, OSError, IndexError, KeyError, ValueError) as e:
            tail = "\n".join(stderr.strip().splitlines()[-15:])
            print(f"  FAILED: {e}\n{tail}", file=sys.stderr, flush=True)
            return None, command


# --- Main ----------------------------------------------------------------------


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="comma-separated, from: " + ", ".join(CASES_BY_NAME)
                        + " (default: the CPU cases, busy-machine ones included, and the GPU "
                        "ones too when there is a GPU)")
    parser.add_argument("--cpp", type=Path,
                        default=REPO / "build" / "release" / "apps" / "cifar-train")
    parser.add_argument("--python", type=Path,
                        default=CACHE_PYTHON if CACHE_PYTHON.exists() else Path(sys.executable),
                        help="a Python that imports torch (default: the cifar-train cache venv's)")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--reps", type=int, default=3,
                        help="rounds of C++, Python runs per case (busy cases: idle and busy, "
                        "in ABBA order)")
    parser.add_argument("--epochs", type=int, default=0, help="epochs per run (0: each case's own)")
    parser.add_argument("--train-limit", type=int, default=0,
                        help="train on the first N images only, for quick runs (0: all 50000)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="intra-op CPU threads, for both (default: all cores); the busy "
                        "cases' C++ runs give none, their Python runs 1 and this many")
    parser.add_argument("--out", type=Path, help="also write the report here, as markdown")
    parser.add_argument("--device", help="run the chosen cases on this device instead of their "
                        "own (cpu: the GPU cases' commands checked where there is no GPU, as "
                        "scripts/gpu/check.sh --cpu does; the figures are then CPU figures)")
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
    if args.device:
        cases = [dataclasses.replace(case, device=args.device) for case in cases]
    if any(case.on_gpu for case in cases) and not env["cuda"]:
        sys.exit("error: GPU cases asked for, but torch.cuda.is_available() is false in "
                 f"{args.python}")

    load = os.getloadavg()[0]
    cpp_version = subprocess.run([str(args.cpp), "--version"], capture_output=True, text=True)
    header = machine_header(env["gpu"], env.get("cpu_capability")) + [
        f"- C++: {args.cpp} ({cpp_version.stdout.strip()})",
        f"- Python: {args.python} (torch {env['torch']})",
        f"- Threads: {args.threads}; reps: {args.reps}; train images: "
        + (str(args.train_limit) if args.train_limit else "all 50000")
        + "; epochs: " + (str(args.epochs) if args.epochs else "per case"),
        f"- Data: {args.data}",
    ] + ([f"- Device: {args.device} for every case (--device)"] if args.device else [])
    if any(case.busy for case in cases) and os.environ.get("OMP_NUM_THREADS"):
        header.append(f"- OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']} here; "
                      "removed for the busy-machine cases' runs")
    print("\n".join(header), flush=True)
    if load > 0.5:
        print("warning: the machine is busy; CPU timings with --threads at all cores can swing "
              "tenfold when other work takes cores (OpenMP threads wait on each other)",
              file=sys.stderr, flush=True)

    rows = []  # (case, variant, [Result]), in table order
    commands = {}
    with BusyLoop() as busy:
        for case in cases:
            case_rows = [(case, variant, []) for variant in case.variants]
            rows += case_rows
            for rep in range(1, args.reps + 1):
                order = case_rows[::-1] if case.abba and rep % 2 == 0 else case_rows
                for _, variant, results in order:
                    label = label_of(variant, args)
                    print(f"[{case.name}] round {rep}/{args.reps}: {label}", flush=True)
                    busy.set(variant.busy)
                    result, command = run_once(case, variant, args, busy)
                    commands[(case.name, label)] = command
                    if result:
                        result.round = rep
                        results.append(result)
                        print(f"  {result.images_per_second:,.0f} img/s, "
                              f"{result.epoch_seconds:.2f} s, test acc {result.test_accuracy:.4f}"
                              + (f", {result.threads} threads" if result.threads else ""),
                              flush=True)
            busy.set(0)

    report = "\n".join(header) + "\n\n" + table(rows, args) + "\n"
    report += (
        "\nimg/s and epoch s: the last training epoch of each run (evaluation excluded), median "
        "over the rounds. Peak mem: GPU allocator peak in that epoch, or the process's peak RSS "
        "on the CPU. C++/Python: C++ img/s over Python img/s (busy runs against busy ones).\n"
    )
    if any(case.busy for case in cases):
        report += "\n" + busy_summary(rows, args) + "\n"
    report += "\nCommands (temporary folders vary per run):\n\n```\n"
    report += "\n".join(shlex.join(command) for command in commands.values()) + "\n```\n"
    print("\n" + report)
    if args.out:
        args.out.write_text(report)
        print(f"report written to {args.out}")
    failed = any(len(results) < args.reps for _, _, results in rows)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the runs and any busy loop are already stopped
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
