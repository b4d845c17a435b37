"""Fine-tuning photos from ImageNet weights: cifar-train against PyTorch, side
by side on the same CPU, photos, model and weights (issue 52).

For each folder and seed, it runs, alternately, the whole `cifar-train
--config configs/photos-pretrained.toml --data DIR` command and the whole
`finetune_python.py --data DIR` script (PyTorch at its best on a CPU:
finetune_python.py's docstring), each on a fresh copy of the folder, so both
decode every photo (cifar-train's cache starts empty), and reports each side's
accuracy on the folder's test/ (else val/) split and its wall time, with the
C++/Python time ratio; then the mean per folder and over all.

    python3 scripts/bench/finetune_bench.py --folders ../shared/photos/flowers DIR2 ...
        [--seeds 0 1] [--cpp-args "--epochs 4"] [--python-args "--amp none"] [--sides cpp,python]

The header names the CPU, its flags and ATen's capability (bench_common.py).
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import machine_header  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
# "top-1 N %, top-5 M %" for more than ten classes (report/class_report.cpp)
ACCURACY = re.compile(r"Accuracy of the network on the (\d+) test images: (?:top-1 )?([0-9.]+) %")


def timed(cmd, log):
    start = time.time()
    with open(log, "w") as f:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=f, text=True)
    seconds = time.time() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}: see {log}")
    return done.stdout, seconds


def run_cpp(a, data, seed, work):
    cmd = [a.cpp, "--config", a.config, "--data", data, "--seed", str(seed), "--run-dir",
           os.path.join(work, "run"), "--checkpoint", os.path.join(work, "model.pt")]
    out, seconds = timed(cmd + shlex.split(a.cpp_args), os.path.join(work, "cpp.log"))
    match = ACCURACY.search(out)
    if not match:
        sys.exit(f"no accuracy in cifar-train's report:\n{out}")
    return float(match.group(2)) / 100, seconds


def run_python(a, data, seed, work):
    script = os.path.join(ROOT, "scripts", "bench", "finetune_python.py")
    cmd = [a.python, script, "--data", data, "--seed", str(seed)] + shlex.split(a.python_args)
    out, seconds = timed(cmd, os.path.join(work, "python.log"))
    return json.loads(out.strip().splitlines()[-1])["accuracy"], seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--folders", nargs="+", required=True)
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    p.add_argument("--config", default=os.path.join(ROOT, "configs", "photos-pretrained.toml"))
    p.add_argument("--cpp", default=os.path.join(ROOT, "build", "release", "apps", "cifar-train"))
    p.add_argument("--python", default=os.path.join(CACHE, "cifar-train", "torch-2.11.0", "bin", "python"))
    p.add_argument("--cpp-args", default="")
    p.add_argument("--python-args", default="")
    p.add_argument("--sides", default="cpp,python")
    a = p.parse_args()
    sides = a.sides.split(",")
    capability = subprocess.run([a.python, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                                capture_output=True, text=True).stdout.strip()
    print("\n".join(machine_header(cpu_capability=capability)))
    print(f"\ncifar-train: {a.config} {a.cpp_args}; Python: finetune_python.py {a.python_args}\n")
    print("| folder | seed | C++ accuracy | C++ s | Python accuracy | Python s | C++/Python time |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = []
    for folder in a.folders:
        for seed in a.seeds:
            result = {}
            for side in sides:
                with tempfile.TemporaryDirectory() as work:
                    data = os.path.join(work, "data")
                    shutil.copytree(folder, data, ignore=shutil.ignore_patterns(".cifar-cache"))
                    run = run_cpp if side == "cpp" else run_python
                    result[side] = run(a, data, seed, work)
            rows.append((folder, seed, result))
            c, py = result.get("cpp", (float("nan"),) * 2), result.get("python", (float("nan"),) * 2)
            print(f"| {os.path.basename(folder.rstrip('/'))} | {seed} | {c[0]:.2%} | {c[1]:.1f} | "
                  f"{py[0]:.2%} | {py[1]:.1f} | {c[1] / py[1]:.2f}x |", flush=True)
    print("\n| folder | C++ mean accuracy | C++ mean s | Python mean accuracy | Python mean s | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for folder in a.folders + ["all"]:
        picked = [r for f, _, r in rows if folder in (f, "all")]
        mean = lambda side, i: sum(r.get(side, (float("nan"),) * 2)[i] for r in picked) / len(picked)
        print(f"| {os.path.basename(folder.rstrip('/'))} | {mean('cpp', 0):.2%} | {mean('cpp', 1):.1f} | "
              f"{mean('python', 0):.2%} | {mean('python', 1):.1f} | "
              f"{mean('cpp', 1) / mean('python', 1):.2f}x |")


if __name__ == "__main__":
    main()
