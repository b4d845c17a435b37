#!/usr/bin/env bash
# check.sh: one call on a GPU machine checks every GPU path of the project
# and measures its GPU figures, from the kit scripts/gpu/prepare.sh made
# (.gpu-kit/ beside the repository: binaries, libraries, airbench, and a data
# subset unless the whole set came in parts, .gpu-data/) and the machine's
# own Python with torch 2.11.0; nothing is built or fetched.
# Steps: the environment; the kit's completeness (and its binaries' RPATH);
# the data; the [cuda] tests, each on its own; the published airbench94
# (PyPI's airbench 0.1.8) beside configs/airbench94.toml and
# configs/speedrun.toml with --cuda-graph on the same data, 3 seeds
# alternating (early: it is the issue's headline); an NCCL process group
# (world size 1) and, on a machine with two GPUs, two cifar-train ranks on
# NCCL (a clean end without the "NOT been destroyed" warning, and a killed
# rank reported in one line within --dist-timeout); airbench94 and speedrun
# eagerly (the fast recipes: epochs at 24 and 28 px, selective TTA); the
# CUDA graph on the classic recipe (configs/resnet18.toml, eager and
# --cuda-graph: the epochs' times without the capture); --amp fp16's loss
# scaling on CUDA, resumed; --deterministic twice with identical weights;
# cifar-eval on the CPU of the checkpoint the GPU trained; the GPU cases of
# scripts/bench/run_bench.py (ResNet-18 bf16 channels-last, the tutorial
# network with and without the CUDA graph, each against Python PyTorch).
# docs/benchmarks.md lists what each step proves.
# Each step runs under its own time limit and the whole ends within about
# 9 minutes; a step's failure is recorded and the next step still runs. A
# step that cannot run on this machine (two ranks on one GPU) is reported as
# skipped with its reason and listed as unverified, not failed.
# The report (report.md, and logs.txt with every step's output;
# check_report.bash) goes into $OUT when set, else ./gpu-report/, rewritten
# before every step and at the end, so a check stopped early leaves the
# steps it ran and names the one it stopped in.
# Exit status: 0 when every step passed.
#
#   bash scripts/gpu/check.sh [--cpu] [--subset] [--kit DIR]
#
# --cpu: the CPU stands in for the GPU (device cpu, short runs, the [cuda]
# tests skipped, a gloo group beside NCCL's), run from the kit alone, so a
# developer proves the kit complete on a machine without a GPU.
# The data: $CIFAR10_DIR, else the whole set that earlier calls carried in
# parts (.gpu-data/: prepare.sh --full-data); the kit's subset only with
# --subset (implied by --cpu). Without data, the steps that train or measure
# are not run, and the check fails: no figure is reported on fewer than
# CIFAR-10's 50,000 training images unless asked.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/kit_lib.bash"
source "$here/check_report.bash"
export REPO
REPO=$(cd "$here/../.." && pwd)
export MODE=gpu KIT="$REPO/.gpu-kit" SUBSET=0
while (($#)); do
  case "$1" in
    --cpu) MODE=cpu SUBSET=1; shift ;;
    --subset) SUBSET=1; shift ;;
    --kit) KIT=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cd "$REPO" || exit 1
report_dir="${OUT:-$REPO/gpu-report}"
mkdir -p "$report_dir" || exit 1
export WORK
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
# Killed (Ctrl-C, SIGTERM, the caller's own time limit), the running step is
# stopped too: `timeout` passes the signal on to the step's processes.
# The report so far is written before it exits, the stopped step in it
# (run_step's t0, its start, is seen here: the trap runs inside its wait).
step_pid= step_name=
stop_step() {
  [[ -n $step_pid ]] && kill -TERM "$step_pid" 2>/dev/null && wait "$step_pid" 2>/dev/null
  if [[ -n $step_name ]]; then
    names+=("$step_name") results+=("FAILED: stopped with the check")
    seconds+=($(($(date +%s) - ${t0:-$(date +%s)})))
  fi
  write_report "stopped by a signal during ${step_name:-the report}"
  exit 143
}
trap stop_step TERM INT HUP
export DATA="$WORK/data"
start=$(date +%s)
if [[ "$MODE" == gpu ]]; then
  export DEVICE=cuda:0
  budget=540 # seconds for all steps; the report comes after
else
  export DEVICE=cpu
  budget=1800
fi
deadline=$((start + budget))

export PYTHON LD_LIBRARY_PATH
PYTHON=$(kit_python) || PYTHON=python3
site=$(kit_site_packages "$PYTHON" 2>/dev/null)
LD_LIBRARY_PATH=$(kit_library_path "$KIT" "$site")

names=() results=() seconds=()
# The steps that train or measure on the data: not run when the data step failed.
needs_data=" nccl-two-ranks airbench94 speedrun reference graph amp-fp16 deterministic eval-cpu bench-resnet18 bench-tutorial "
data_ok=0
# run_step NAME LIMIT: runs check_steps.sh NAME under min(LIMIT, time left).
run_step() {
  local name="$1" limit="$2" left rc t0 result
  if [[ "$needs_data" == *" $name "* ]] && ((!data_ok)); then
    names+=("$name") results+=("not run: no data (see the data step)") seconds+=(0)
    return
  fi
  left=$((deadline - $(date +%s)))
  ((left < limit)) && limit=$left
  if ((limit < 5)); then
    names+=("$name") results+=("not run: out of time") seconds+=(0)
    return
  fi
  # The report before the step names it: should the call be killed outright
  # (SIGKILL, no trap), it says where the check stopped.
  step_name=$name
  write_report "stopped during the $name step"
  echo "[$(date -u +%H:%M:%S)] $name (limit ${limit} s)"
  t0=$(date +%s)
  timeout -k 10 "$limit" bash "$here/check_steps.sh" "$name" >"$WORK/log-$name.txt" 2>&1 &
  step_pid=$!
  wait "$step_pid"
  rc=$?
  step_pid= step_name=
  case $rc in
    0) result=passed ;;
    77 ) if [[ -s "$WORK/skip-$name.txt" ]]; then
      result="skipped: $(head -1 "$WORK/skip-$name.txt") (unverified)"
    else
      result="skipped: no usable CUDA device"
    fi ;;
    124 | 137) result="FAILED: timed out after $limit s" ;;
    *) result="FAILED: exit $rc" ;;
  esac
  names+=("$name") results+=("$result") seconds+=($(($(date +%s) - t0)))
  echo "  $result ($(($(date +%s) - t0)) s)"
  [[ "$name" == data && "$result" == passed ]] && data_ok=1
}

# The limits follow the machine: three times longer for the CPU rehearsal,
# and longer again when other work already loads the cores (1 + the load
# average per core when the check starts).
cores=$(nproc)
load=$(cut -d' ' -f1 /proc/loadavg)
scale=$(awk -v m="$MODE" -v l="$load" -v c="$cores" \
  'BEGIN { s = (m == "gpu" ? 1 : 3) * (1 + l / c); printf "%d", s * 10 + 0.5 }')  # tenths
run_step environment 30
run_step kit 60
run_step data 60
run_step cuda-tests $((90 * scale / 10)) # also loads CUDA's libraries for both sides below
run_step reference $((200 * scale / 10)) # the side by side early: it is the headline
run_step nccl 60
run_step nccl-two-ranks $((90 * scale / 10))
run_step airbench94 $((75 * scale / 10))
run_step speedrun $((75 * scale / 10))
run_step graph $((90 * scale / 10))
run_step amp-fp16 $((60 * scale / 10))
run_step deterministic $((60 * scale / 10))
run_step eval-cpu $((45 * scale / 10))
run_step bench-resnet18 $((100 * scale / 10))
run_step bench-tutorial $((120 * scale / 10))

write_report
cat "$report_dir/report.md" # also in the output, should the files not come back
echo "report: $report_dir/report.md ($(($(date +%s) - start)) s)"
exit $failed
