"""bench_common.py: pieces shared by the benchmark scripts (standard library only).

- cpu_info() and machine_header(): the CPU model, the instruction-set flags the
  kernels care about (AVX2, AVX-512, AMX, ...), core counts and the load average,
  read from /proc/cpuinfo and os, for the top of a report.
- BusyLoop: other work on the machine, made on purpose: N processes that each
  spin on one core (`python3 -c 'while True: pass'`), always killed at the end,
  on an exception, on Ctrl-C, on SIGTERM, and (Linux) even when the benchmark
  itself is killed with SIGKILL.
"""

import atexit
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# Flags in /proc/cpuinfo that decide which kernels oneDNN, FBGEMM and ATen's
# vectorised code can use. x86 first, then AArch64's "Features".
KERNEL_FLAGS = [
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni",
    "avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
    "amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
    "asimd", "asimddp", "sve", "sve2", "bf16", "i8mm",
]
X86_ONLY = set(KERNEL_FLAGS[:KERNEL_FLAGS.index("asimd")])
BUSY_CODE = "while True: pass"


def cpu_info():
    """A dict: model, flags (present, in KERNEL_FLAGS order), absent, and the CPU counts
    logical, physical (cores; None when /proc/cpuinfo does not say), usable (affinity)."""
    model, flags, cores = None, set(), set()
    physical_id = None
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = (part.strip() for part in line.partition(":"))
        if key in ("model name", "Model") and model is None:
            model = value
        elif key in ("flags", "Features") and not flags:
            flags = set(value.split())
        elif key == "physical id":
            physical_id = value
        elif key == "core id":
            cores.add((physical_id, value))
    x86 = bool(flags & X86_ONLY)
    relevant = [f for f in KERNEL_FLAGS if (f in X86_ONLY) == x86]
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {
        "model": model or "unknown CPU",
        "flags": [f for f in relevant if f in flags],
        "absent": [f for f in relevant if f not in flags] if flags else [],
        "logical": os.cpu_count(),
        "physical": len(cores) or None,
        "usable": usable,
    }


def cpu_model():
    return cpu_info()["model"]


def load_average():
    """'1.17 / 1.54 / 1.54 (1 / 5 / 15 min)', or 'unknown'."""
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1 / 5 / 15 min)"
    except OSError:
        return "unknown"


def machine_header(gpu=None, cpu_capability=None):
    """Markdown bullet lines: CPU model and cores, kernel flags, load average."""
    info = cpu_info()
    cores = f"{info['logical']} logical CPUs"
    if info["physical"]:
        cores += f", {info['physical']} physical cores"
    if info["usable"] != info["logical"]:
        cores += f", {info['usable']} usable by this process"
    flags = " ".join(info["flags"]) or "none of the listed ones"
    if info["absent"]:
        flags += f" (absent: {' '.join(info['absent'])})"
    if cpu_capability:
        flags += f"; ATen's CPU capability: {cpu_capability}"
    return [
        f"- Machine: {info['model']}, {cores}" + (f"; GPU: {gpu}" if gpu else "; no GPU"),
        f"- CPU flags for the kernels: {flags}",
        f"- Load average at start: {load_average()}",
    ]


# --- Busy loop -----------------------------------------------------------------


def die_with_parent():
    """In the child before exec: SIGKILL it when the parent dies (Linux prctl PR_SET_PDEATHSIG)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class BusyLoop:
    """Keeps `count` processes spinning, each on one core (not pinned: the scheduler places it).

    Use as a context manager; set(n) starts or stops processes to have n.
    On leaving the block, whatever the reason, every process is killed and reaped.
    Belt and braces: an atexit hook, SIGTERM turned into SystemExit while the
    block runs, and PR_SET_PDEATHSIG in the children for a SIGKILLed parent.
    The children run in their own session so Ctrl-C reaches only the
    benchmark, which then kills them.
    """

    def __init__(self, settle_seconds=1.0, log=print):
        self.processes = []
        self.settle_seconds = settle_seconds
        self.log = log
        self._old_sigterm = None

    def __enter__(self):
        atexit.register(self.stop)
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._old_sigterm = signal.signal(signal.SIGTERM,
                                              lambda signum, frame: sys.exit(128 + signum))
        return self

    def __exit__(self, *exc):
        self.stop()
        if self._old_sigterm is not None:
            signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None
        atexit.unregister(self.stop)
        return False

    @property
    def count(self):
        return len(self.processes)

    def set(self, count):
        if count == self.count:
            return
        self.stop()
        for _ in range(count):
            self.processes.append(subprocess.Popen(
                [sys.executable, "-c", BUSY_CODE], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=die_with_parent))
        if count:
            time.sleep(self.settle_seconds)  # let them start spinning before anything is timed
            self.log(f"busy loop: started {count} spinning process(es), pid "
                     + ", ".join(str(p.pid) for p in self.processes))
            if not self.alive():
                raise RuntimeError("a busy-loop process exited at once")

    def alive(self):
        """Whether every busy process is still running."""
        return all(p.poll() is None for p in self.processes)

    def stop(self):
        """Kills and reaps every busy process; safe to call any number of times."""
        processes, self.processes = self.processes, []
        for p in processes:
            if p.poll() is None:
                p.kill()
        for p in processes:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                print(f"warning: busy-loop process {p.pid} did not exit after SIGKILL",
                      file=sys.stderr, flush=True)
        if processes:
            self.log("busy loop: stopped pid " + ", ".join(str(p.pid) for p in processes))
