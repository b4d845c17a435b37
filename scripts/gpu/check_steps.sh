#!/usr/bin/env bash
# check_steps.sh: one step of scripts/gpu/check.sh, which runs each under its
# own time limit and reads what it leaves behind: its output (the step's log)
# and, for steps that measure, a Markdown piece $WORK/figures-STEP.md for the
# report. Not meant to be run by hand: check.sh exports what it needs
# (KIT, WORK, DEVICE, MODE, PYTHON, DATA, REPO, LD_LIBRARY_PATH).
#
#   check_steps.sh STEP     STEP: environment kit data cuda-tests reference nccl
#                           nccl-two-ranks airbench94 speedrun graph amp-fp16
#                           deterministic eval-cpu bench-resnet18 bench-tutorial
#
# A step that cannot run on this machine (nccl-two-ranks with one GPU) writes
# its reason to $WORK/skip-STEP.txt and exits 77: check.sh reports it as
# skipped, not failed, and lists it as unverified.
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
peak = int(last["peak_memory_bytes"] or 0)  # empty on a CPU
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
    # The real set: $CIFAR10_DIR, else the whole set packed in parts that
    # earlier calls to this machine carried (.gpu-data/, data_pack.py; every
    # part and file checked by SHA-256), else, only when asked (--subset, or
    # --cpu's rehearsal), the kit's real subset repeated to full-size files
    # (data_batch_1..5 the same images; test_batch the first test images,
    # twice), so that epochs have their real length but accuracies are not
    # the speedrun's.
    if [[ -n "${CIFAR10_DIR:-}" && -f "${CIFAR10_DIR}/test_batch.bin" ]]; then
      ln -s "$CIFAR10_DIR" "$DATA" && echo "data: $CIFAR10_DIR (the real set)"
      exit
    fi
    if [[ -f "$REPO/.gpu-data/cifar10.json" ]]; then
      exec "$PYTHON" "$REPO/scripts/gpu/data_pack.py" unpack "$REPO/.gpu-data" "$DATA"
    fi
    archive="$KIT/data/cifar10-subset.tar.xz"
    [[ -f "$archive" ]] || {
      echo "no data: neither .gpu-data/ (prepare.sh --full-data) nor $archive (prepare.sh)"
      exit 1
    }
    if [[ "${SUBSET:-0}" != 1 ]]; then
      echo "refused: the kit holds $(sed -n 's/^KIT_TRAIN_IMAGES=//p' "$KIT/kit.env") real" \
        "training images, not CIFAR-10's 50,000, and figures on them are not the recipes'." \
        "Bring the whole set (scripts/gpu/prepare.sh --full-data prints the calls), or pass" \
        "--subset to report on the subset"
      exit 1
    fi
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
print(f"data: the subset (--subset): {n_train} real training images repeated to 5 x 10000, "
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
  airbench94 | speedrun)
    # The two fast recipes: configs/airbench94.toml, and configs/speedrun.toml
    # (its resolution schedule: epochs at 24 and 28 px; selective TTA, level 3).
    flags=()
    gpu || flags+=(--epochs 1 --train-limit 2000 --threads "$(nproc)")
    t0=$(date +%s%N)
    "$bin/cifar-train" --config "configs/$step.toml" --device "$DEVICE" --data "$DATA" \
      --seed 0 --run-dir "$WORK/$step" --checkpoint "$WORK/$step.pt" --no-tensorboard \
      "${flags[@]}" || exit
    wall=$(since "$t0")
    metrics_row "$step \`${flags[*]:-(eager)}\`" "$WORK/$step/metrics.csv" "$wall" \
      >"$WORK/figures-$step.md"
    cat "$WORK/$step/metrics.csv"
    ;;
  reference)
    exec bash "$REPO/scripts/gpu/check_reference.sh"
    ;;
  graph)
    # --cuda-graph on the classic recipe (one SGD group) against the same run
    # eagerly (the airbench recipes' graphs run in the reference step). The
    # graph is captured once per run (one image size, no group frozen), and
    # the epochs' times leave the capture out: the log says how long it took.
    flags=(--config configs/resnet18.toml --epochs 2 --seed 0 --no-tensorboard)
    gpu || flags+=(--epochs 1 --train-limit 1024 --test-limit 1000 --amp off --threads "$(nproc)")
    : >"$WORK/figures-$step.md"
    for mode in eager graph; do
      extra=()
      [[ $mode == graph ]] && extra=(--cuda-graph)
      t0=$(date +%s%N)
      "$bin/cifar-train" "${flags[@]}" "${extra[@]}" --device "$DEVICE" --data "$DATA" \
        --run-dir "$WORK/$step-$mode" --checkpoint "$WORK/$step-$mode.pt" 2>&1 |
        tee "$WORK/$step-$mode.log"
      ((PIPESTATUS[0] == 0)) || exit 1
      wall=$(since "$t0")
      label="resnet18.toml ${extra[*]:-(eager)}"
      if [[ $mode == graph ]] && gpu; then
        capture=$(grep -o 'captured in [0-9.]* s' "$WORK/$step-$mode.log" | head -1)
        [[ -n $capture ]] || { echo "no 'captured in' line: was the step captured?"; exit 1; }
        (($(grep -c 'captured in' "$WORK/$step-$mode.log") == 1)) ||
          { echo "the graph was captured more than once"; exit 1; }
        label+=" ($capture, not counted in the epochs)"
      fi
      metrics_row "$label" "$WORK/$step-$mode/metrics.csv" "$wall" >>"$WORK/figures-$step.md"
      cat "$WORK/$step-$mode/metrics.csv"
    done
    ;;
  amp-fp16)
    # fp16 with loss scaling on CUDA (the GradScaler's CUDA kernels): an
    # epoch, then --resume for a second that continues the loss scale.
    flags=(--config configs/resnet18.toml --amp fp16 --seed 0 --no-tensorboard
      --train-limit 10000 --test-limit 2000)
    gpu || flags+=(--model net --batch-size 64 --train-limit 512 --test-limit 500 --threads "$(nproc)")
    "$bin/cifar-train" "${flags[@]}" --epochs 1 --device "$DEVICE" --data "$DATA" \
      --run-dir "$WORK/$step" --checkpoint "$WORK/$step.pt" 2>&1 | tee "$WORK/$step-1.log"
    ((PIPESTATUS[0] == 0)) || exit 1
    "$bin/cifar-train" "${flags[@]}" --epochs 2 --device "$DEVICE" --data "$DATA" \
      --resume "$WORK/$step.pt" --checkpoint "$WORK/$step.pt" 2>&1 | tee "$WORK/$step-2.log"
    ((PIPESTATUS[0] == 0)) || exit 1
    grep -q 'epoch 1: [0-9]* of [0-9]* steps skipped for inf/NaN gradients, loss scale now' \
      "$WORK/$step-1.log" || { echo "no loss-scale line for epoch 1"; exit 1; }
    grep -q 'loss scale [0-9.e+]* continued' "$WORK/$step-2.log" ||
      { echo "--resume did not continue the loss scale"; exit 1; }
    grep -h 'steps skipped for inf/NaN' "$WORK/$step-1.log" "$WORK/$step-2.log" |
      sed -E 's/.*epoch ([0-9]+): (.*)/| --amp fp16, epoch \1 | \2 |/; 2s/epoch 2/& (after --resume)/' \
      >"$WORK/figures-$step.md"
    ;;
  deterministic)
    # --deterministic twice: the same weights, bit for bit (model.safetensors).
    flags=(--config configs/resnet18.toml --deterministic --seed 0 --epochs 1 --no-tensorboard
      --train-limit 10000 --test-limit 1000)
    gpu || flags+=(--model net --batch-size 64 --train-limit 512 --test-limit 500 --amp off)
    for run in a b; do
      "$bin/cifar-train" "${flags[@]}" --device "$DEVICE" --data "$DATA" \
        --run-dir "$WORK/$step-$run" --checkpoint "$WORK/$step-$run.pt" || exit 1
    done
    if cmp "$WORK/$step-a/model.safetensors" "$WORK/$step-b/model.safetensors"; then
      echo "| --deterministic twice | model.safetensors identical |" >"$WORK/figures-$step.md"
    else
      echo "| --deterministic twice | model.safetensors DIFFER |" >"$WORK/figures-$step.md"
      exit 1
    fi
    ;;
  nccl-two-ranks)
    exec bash "$REPO/scripts/gpu/check_nccl.sh"
    ;;
  eval-cpu)
    # The checkpoint a GPU trained, evaluated on the CPU: its accuracy must
    # match what the GPU measured at the end of training.
    name=airbench94
    [[ -f "$WORK/$name.pt" ]] || { echo "no checkpoint from the airbench94 step"; exit 1; }
    # The file must really say it was saved from the GPU (the storages'
    # locations in its archive), or this step proves nothing.
    "$PYTHON" - "$WORK/$name.pt" "$MODE" <<'PY' || exit 1
import io, pickletools, struct, sys, zipfile
data = open(sys.argv[1], "rb").read()
header = struct.unpack_from("<I", data, 12)[0]
archive = zipfile.ZipFile(io.BytesIO(data[16 + header:len(data) - 32]))
places = set()
for name in archive.namelist():
    if name.endswith("data.pkl"):
        strings = [arg for op, arg, _ in pickletools.genops(archive.read(name)) if isinstance(arg, str)]
        places |= {s for s in strings if s == "cpu" or s.startswith("cuda")}
print("storage locations in the checkpoint:", sorted(places))
sys.exit(0 if sys.argv[2] == "cpu" or any(p.startswith("cuda") for p in places) else 1)
PY
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
    [[ $? == 0 ]] || exit 1
    # cifar-predict with the model on $DEVICE (the images must follow it) and
    # on the CPU: the same classes.
    "$PYTHON" - "$WORK/img.png" <<'PY' || exit 1
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
rows = b"".join(b"\0" + bytes([200, 50, 50] * 32) for _ in range(32))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY
    for where in "$DEVICE" cpu; do
      "$bin/cifar-predict" --checkpoint "$WORK/$name.pt" --device "$where" --top-k 3 \
        "$WORK/img.png" >"$WORK/predict-$where.txt" || exit 1
      cat "$WORK/predict-$where.txt"
    done
    [[ "$(cut -d' ' -f2 "$WORK/predict-$DEVICE.txt")" == "$(cut -d' ' -f2 "$WORK/predict-cpu.txt")" ]] ||
      { echo "cifar-predict on $DEVICE and on the CPU disagree"; exit 1; }
    echo "| cifar-predict --device $DEVICE and cpu on the same image | $(cut -d' ' -f2 "$WORK/predict-cpu.txt") on both | | |" \
      >>"$WORK/figures-eval-cpu.md"
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
