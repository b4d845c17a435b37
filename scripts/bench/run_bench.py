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
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# cpu_model is imported here for bench_dist.py, which takes it from this module.
from bench_common import (  # noqa: E402,F401
    BUSY_CODE, BusyLoop, cpu_model, die_with_parent, machine_header)

REPO = Path(__file__).resolve().parents[2]
TRAIN_PYTHON = REPO / "scripts" / "bench" / "train_python.py"
CACHE_PYTHON = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "cifar-train" / "torch-2.11.0" / "bin" / "python"
)


@dataclasses.dataclass
class Variant:
    """One row of the table: an implementation and its extra flags."""

    label: str  # "{threads}" in it is filled with --threads
    impl: str  # "cpp" or "python"
    flags: list
    threads: object = None  # None: --threads; 0: none given (the program's own choice); N: N
    busy: int = 0  # processes spinning beside the run


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
    abba: bool = False  # reverse the variants' order every other round

    @property
    def busy(self):
        return any(variant.busy for variant in self.variants)

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
    # The same with channels-last (NHWC) images and weights on both sides.
    Case("net-b256-cl-cpu", "net", "cpu", batch_size=256, lr=0.05, epochs=1, channels_last=True,
         variants=[
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
TENSOR = ["--loader", "tensor"]
BUSY = 1  # processes spinning beside the busy runs
KEPT_TARGET = 0.70  # C++ default busy / idle, at batch 4 and at batch 256


def busy_case(name, batch_size, lr):
    """Issue 12: cifar-train's default idle and beside BUSY spinning processes, Python busy."""
    return Case(name, "net", "cpu", batch_size=batch_size, lr=lr, epochs=1, abba=True, variants=[
        Variant("C++ default, idle", "cpp", [], threads=0),
        Variant(f"C++ default, {BUSY} busy", "cpp", [], threads=0, busy=BUSY),
        Variant(f"Python 1 thread, {BUSY} busy", "python", TENSOR, threads=1, busy=BUSY),
        Variant(f"Python {{threads}} threads, {BUSY} busy", "python", TENSOR, busy=BUSY),
    ])


CASES += [busy_case("busy-b4-cpu", 4, 0.001), busy_case("busy-b256-cpu", 256, 0.05)]
CASES_BY_NAME = {case.name: case for case in CASES}


@dataclasses.dataclass
class Result:
    images_per_second: float
    epoch_seconds: float
    test_accuracy: float
    peak_memory_bytes: int
    threads: int = 0  # as cifar-train's log says, when it says (not under -q)
    round: int = 0


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


def label_of(variant, args):
    return variant.label.format(threads=args.threads)


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
                        float(row["test_accuracy"]), int(row["peak_memory_bytes"]))
        # The thread tuner's last choice when it measured, else the planned count.
        tuned = re.findall(r"threads measured:.*; using (\d+)", stdout + stderr)
        chosen = re.search(r"device: cpu, (\d+) threads?", stdout + stderr)
        result.threads = int(tuned[-1]) if tuned else int(chosen.group(1)) if chosen else 0
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


# --- Report --------------------------------------------------------------------


def format_memory(nbytes, on_gpu):
    kind = "GPU" if on_gpu else "RSS"
    if nbytes >= 1 << 30:
        return f"{nbytes / (1 << 30):.2f} GiB {kind}"
    return f"{nbytes / (1 << 20):.0f} MiB {kind}"


def median_speed(results):
    return statistics.median(r.images_per_second for r in results) if results else None


def table(rows, args):
    """rows: (case, variant, [Result]) in order; returns the markdown table."""
    python_speed = {}  # (case name, busy) -> [(label, median img/s)]
    for case, variant, results in rows:
        if variant.impl == "python" and results:
            python_speed.setdefault((case.name, variant.busy), []).append(
                (label_of(variant, args), median_speed(results)))
    lines = [
        "| case | impl | median img/s | median epoch s | test acc | peak mem | C++/Python |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for case, variant, results in rows:
        label = label_of(variant, args)
        if not results:
            lines.append(f"| {case.name} | {label} | failed | | | | |")
            continue
        speed = median_speed(results)
        seconds = statistics.median(r.epoch_seconds for r in results)
        accuracy = statistics.median(r.test_accuracy for r in results)
        memory = statistics.median(r.peak_memory_bytes for r in results)
        ratio = ""
        if variant.impl == "cpp":
            ratios = [(other_label, speed / other)
                      for other_label, other in python_speed.get((case.name, variant.busy), [])]
            if len(ratios) == 1:
                ratio = f"{ratios[0][1]:.2f}x"
            else:
                ratio = "; ".join(f"{r:.2f}x vs {other_label}" for other_label, r in ratios)
        lines.append(
            f"| {case.name} | {label} | {speed:,.0f} | {seconds:.2f} | {accuracy:.4f} "
            f"| {format_memory(int(memory), case.on_gpu)} | {ratio} |"
        )
    return "\n".join(lines)


def busy_summary(rows, args):
    """Issue 12's section: fraction of idle throughput kept, and the targets with PASS/MISS."""
    lines = [
        f"Beside {BUSY} busy process(es) (`python3 -c '{BUSY_CODE}'`, each spinning on one "
        "core); C++ runs without --threads or OMP_NUM_THREADS (cifar-train's default plan); "
        "idle and busy runs alternate (ABBA over rounds). Python: tensor loader.",
        "",
        "| case | C++ default idle | C++ default busy | kept | Python busy, per thread count "
        "| C++ busy / best Python busy |",
        "|---|---:|---:|---:|---|---:|",
    ]
    targets = []
    busy_cases = {case.name: case for case, _, _ in rows if case.busy}  # in order, once each
    for case in busy_cases.values():
        mine = [(variant, results) for c, variant, results in rows if c is case]
        idle = next(results for v, results in mine if v.impl == "cpp" and not v.busy)
        busy = next(results for v, results in mine if v.impl == "cpp" and v.busy)
        python = [(v.threads or args.threads, median_speed(results)) for v, results in mine
                  if v.impl == "python"]
        chosen = sorted({r.threads for r in idle + busy if r.threads})
        threads = (f"; C++ chose {'/'.join(map(str, chosen))} thread"
                   + ("s" if chosen != [1] else "")) if chosen else ""
        kept = median_speed(busy) / median_speed(idle) if idle and busy else None
        measured_python = [speed for _, speed in python if speed is not None]
        best = max(measured_python) if len(measured_python) == len(python) else None
        ahead = median_speed(busy) / best if busy and best else None
        idle_by_round = {r.round: r.images_per_second for r in idle}
        per_round = ", ".join(f"{b.images_per_second / idle_by_round[b.round]:.2f}"
                              for b in busy if b.round in idle_by_round)

        def cell(x, fmt):
            return "failed" if x is None else format(x, fmt)

        lines.append(
            f"| {case.name} (batch {case.batch_size}{threads}) "
            f"| {cell(median_speed(idle), ',.0f')} | {cell(median_speed(busy), ',.0f')} "
            f"| {cell(kept, '.2f')} (per round: {per_round}) "
            f"| " + "; ".join(f"{n} thr: {cell(speed, ',.0f')}" for n, speed in python)
            + f" | {cell(ahead, '.2f')}{'x' if ahead else ''} |")
        for what, value, unit, goal, ok in [
            (f"batch {case.batch_size}: C++ default busy / idle", kept, "", f">= {KEPT_TARGET:.2f}",
             kept is not None and kept >= KEPT_TARGET),
            (f"batch {case.batch_size}: C++ default busy / best Python busy", ahead, "x", "> 1.00x",
             ahead is not None and ahead > 1.0),
        ]:
            verdict = "**PASS**" if ok else "**MISS**"
            verdict += " (a run failed)" if value is None else ""
            measured = "failed" if value is None else f"{value:.2f}{unit}"
            targets.append(f"| {what} | {measured} | {goal} | {verdict} |")
    lines += ["", "| target | measured | goal | result |", "|---|---:|---:|---|"] + targets
    return "\n".join(lines)


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
