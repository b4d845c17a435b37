#!/usr/bin/env bash
# check_steps.sh: one step of scripts/gpu/check.sh, which runs each under its
# own time limit and reads what it leaves behind: its output (the step's log)
# and, for steps that measure, a Markdown piece $WORK/figures-STEP.md for the
# report. Not meant to be run by hand: check.sh exports what it needs
# (KIT, WORK, DEVICE, MODE, PYTHON, DATA, REPO, LD_LIBRARY_PATH).
#
#   check_steps.sh STEP     STEP: environment kit data cuda-tests nccl
#                           airbench94 airbench94-graph eval-cpu bench-resnet18 bench-tutorial
set -uo pipefail
step="$1"
bin="$KIT/bin"
cd "$REPO" || exit 1
gpu() { [[ "$MODE" == gpu ]]; }
# Seconds since $1 (from date +%s%N), with one decimal: no bc on the GPU machine.
since() {
  local ms=$((($(date +%s%N) - $1) / 1000000))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

# The last row of a cifar-train metrics.csv as a Markdown table row:
# label | wall s | training s (all epochs) | img/s (last epoch) | test acc | peak memory.
metrics_row() {
  "$PYTHON" - "$1" "$2" "$3" <<'PY'
import csv, sys
label, path, wall = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = list(csv.DictReader(open(path)))
last = rows[-1]
train_s = sum(float(r["seconds"]) for r in rows)
peak = int(last["peak_memory_bytes"])
mem = f"{peak / 2**30:.2f} GiB" if peak else "n/a (CPU)"
print(f"| {label} | {len(rows)} | {wall:.1f} | {train_s:.2f} | {float(last['images_per_second']):,.0f}"
      f" | {100 * float(last['test_accuracy']):.2f}% | {mem} |")
PY
}

case "$step" in
  environment)
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm)"
    echo "glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null); kit needs GLIBC_$(sed -n 's/^KIT_GLIBC=//p' "$KIT/kit.env")"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
    command -v nvidia-smi >/dev/null && echo "nvidia-smi: $(nvidia-smi \
      --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)"
    "$PYTHON" -c 'import sys, torch
print("python:", sys.version.split()[0], sys.executable)
print("torch:", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
if torch.cuda.is_available(): print("gpu:", torch.cuda.get_device_name(0))'
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    cat "$KIT/kit.env"
    "$bin/cifar-train" --list-devices
    ;;
  kit)
    exec "$REPO/scripts/gpu/kit_complete.sh" "$KIT"
    ;;
  data)
    # Real data if $CIFAR10_DIR holds it; else the kit's real subset, repeated
    # to full-size files (data_batch_1..5 the same images; test_batch the
    # first test images, twice), so that epochs have their real length.
    if [[ -n "${CIFAR10_DIR:-}" && -f "${CIFAR10_DIR}/test_batch.bin" ]]; then
      ln -s "$CIFAR10_DIR" "$DATA" && echo "data: $CIFAR10_DIR (the real set)"
      exit
    fi
    archive="$KIT/data/cifar10-subset.tar.xz"
    [[ -f "$archive" ]] || { echo "no $archive: run prepare.sh with data"; exit 1; }
    mkdir -p "$DATA" || exit 1
    # Python's tarfile reads .xz: the GPU machine may lack the xz program.
    "$PYTHON" - "$archive" "$DATA" <<'PY' || exit 1
import sys, tarfile
from pathlib import Path
record, per_file = 3073, 10000
with tarfile.open(sys.argv[1]) as archive:
    train = archive.extractfile("train.bin").read()
    test = archive.extractfile("test.bin").read()
out = Path(sys.argv[2])
def tiled(data):
    n = len(data) // record
    assert n and len(data) == n * record, f"{len(data)} bytes is not whole records"
    return (data * (per_file // n + 1))[: per_file * record], n
file, n_train = tiled(train)
for i in range(1, 6):
    (out / f"data_batch_{i}.bin").write_bytes(file)
file, n_test = tiled(test)
(out / "test_batch.bin").write_bytes(file)
print(f"data: {n_train} real training images repeated to 5 x 10000, "
      f"{n_test} real test images repeated to 10000")
PY
    ;;
  cuda-tests | nccl)
    # Each test case in its own process, so one crash does not hide the rest.
    filter=$([[ "$step" == nccl ]] && echo "[cuda][dist]" || echo "[cuda]~[dist]")
    mapfile -t names < <("$bin/cifar_cuda_tests" --list-test-names-only "$filter" | grep .)
    ((${#names[@]})) || { echo "no test matches $filter"; exit 1; }
    failed=0 skipped=0
    for name in "${names[@]}"; do
      t0=$(date +%s%N)
      "$bin/cifar_cuda_tests" "${name//,/\\,}" -w NoTests
      rc=$?
      seconds=$(since "$t0")
      case $rc in
        0) result=passed ;;
        77) result="skipped (no usable CUDA device)"; skipped=$((skipped + 1)) ;;
        *) result="FAILED (exit $rc)"; failed=$((failed + 1)) ;;
      esac
      printf '| %s | %s | %s |\n' "$name" "$result" "$seconds" >>"$WORK/figures-$step.md"
    done
    if ! gpu && [[ "$step" == nccl ]]; then
      # The CPU stands in: the same engine's gloo group, two ranks.
      port=$((20000 + RANDOM % 20000))
      pids=()
      for rank in 0 1; do
        env WORLD_SIZE=2 RANK=$rank MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
          "$bin/cifar_dist_driver" average --model net --dist-timeout 60 &
        pids+=($!)
      done
      wait "${pids[0]}" && wait "${pids[1]}"
      rc=$?
      result=$([[ $rc == 0 ]] && echo passed || echo "FAILED (exit $rc)")
      ((rc)) && failed=$((failed + 1))
      echo "| gloo group, world size 2 (cifar_dist_driver average; CPU stand-in) | $result | |" \
        >>"$WORK/figures-$step.md"
    fi
    ((failed)) && exit 1
    # Skipped tests skip the step, except NCCL's where the gloo group stood in.
    if ((skipped)) && { gpu || [[ "$step" == cuda-tests ]]; }; then exit 77; fi
    exit 0
    ;;
  airbench94 | airbench94-graph)
    name=${step}
    flags=()
    [[ "$step" == airbench94-graph ]] && flags+=(--cuda-graph)
    gpu || flags+=(--epochs 1 --train-limit 2000 --threads "$(nproc)")
    t0=$(date +%s%N)
    "$bin/cifar-train" --config configs/airbench94.toml --device "$DEVICE" --data "$DATA" \
      --seed 0 --run-dir "$WORK/$name" --checkpoint "$WORK/$name.pt" --no-tensorboard \
      "${flags[@]}" || exit
    wall=$(since "$t0")
    metrics_row "\`${flags[*]:-(eager)}\`" "$WORK/$name/metrics.csv" "$wall" \
      >"$WORK/figures-$step.md"
    cat "$WORK/$name/metrics.csv"
    ;;
  eval-cpu)
    # The checkpoint a GPU trained, evaluated on the CPU: its accuracy must
    # match what the GPU measured at the end of training.
    for name in airbench94-graph airbench94; do
      [[ -f "$WORK/$name.pt" ]] && break
    done
    [[ -f "$WORK/$name.pt" ]] || { echo "no checkpoint from the airbench94 steps"; exit 1; }
    "$bin/cifar-eval" --checkpoint "$WORK/$name.pt" --device cpu --data "$DATA" \
      --batch-size 1000 | tee "$WORK/eval.txt" || exit
    "$PYTHON" - "$WORK/eval.txt" "$WORK/$name/metrics.csv" "$name" "$MODE" \
      >"$WORK/figures-eval-cpu.md" <<'PY'
import csv, re, sys
text = open(sys.argv[1]).read()
cpu = float(re.search(r"Accuracy of the network on the \d+ test images: ([\d.]+) %", text)[1])
trained = 100 * float(list(csv.DictReader(open(sys.argv[2])))[-1]["test_accuracy"])
diff = abs(cpu - trained)
print(f"| {sys.argv[3]}.pt (trained on {sys.argv[4]}) | {trained:.2f}% | {cpu:.1f}% | {diff:.2f} |")
sys.exit(0 if diff <= 0.5 else 1)  # one decimal printed; bf16 training eval vs fp32 here
PY
    ;;
  bench-resnet18 | bench-tutorial)
    case_name=$([[ "$step" == bench-resnet18 ]] && echo resnet18-b512-bf16-gpu || echo net-b4-gpu)
    extra=()
    if ! gpu; then
      limit=$([[ "$step" == bench-resnet18 ]] && echo 1024 || echo 2000)
      extra=(--device cpu --epochs 1 --train-limit "$limit" --threads "$(nproc)")
    fi
    PYTHONUNBUFFERED=1 "$PYTHON" scripts/bench/run_bench.py --cases "$case_name" --reps 1 \
      --cpp "$bin/cifar-train" --python "$PYTHON" --data "$DATA" "${extra[@]}" \
      --out "$WORK/bench-$step.md"
    rc=$?
    [[ -f "$WORK/bench-$step.md" ]] && sed -n '/^| case/,/^$/p' "$WORK/bench-$step.md" \
      >"$WORK/figures-$step.md"
    exit $rc
    ;;
  *)
    echo "unknown step $step"
    exit 2
    ;;
esac
