#!/usr/bin/env bash
# eval_threads.sh: cifar-eval's default thread choice against fixed counts,
# on an idle machine and beside one busy process.
#
#   scripts/bench/eval_threads.sh [BUILD_DIR] [DATA_DIR] [ROUNDS] [MODEL]
#
# Trains a MODEL (default net) checkpoint for one epoch, then times
# `cifar-eval --checkpoint ... --device cpu` (the 10,000 test images) with
# --threads 1, with all cores, and with the default (the rule of
# platform/cpu_plan.h: the physical cores other processes leave free), ROUNDS times
# each (default 3) in turn, idle and then beside a process spinning on one
# core. Prints the median wall time of each and the default's ratio to the
# best fixed count (1.00: as fast; the goal is at most 1.2 beside the busy
# process). Run it on an otherwise idle machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd)
data=$(cd "${2:-$here/../shared/cifar-10-batches-bin}" && pwd)
rounds=${3:-3}
model=${4:-net}
cores=$(nproc)
work=$(mktemp -d)
spinner=
trap '[[ -n $spinner ]] && kill $spinner 2>/dev/null; rm -rf "$work"' EXIT
unset OMP_NUM_THREADS
"$build/apps/cifar-train" --data "$data" --device cpu --model "$model" --epochs 1 \
  --batch-size 256 --lr 0.05 --train-limit 10000 --test-limit 100 --no-tensorboard \
  --run-dir "$work/run" --checkpoint "$work/m.pt" -q >/dev/null
# seconds of one evaluation with the given extra flags
timed() {
  local start end
  start=$(date +%s.%N)
  "$build/apps/cifar-eval" --checkpoint "$work/m.pt" --data "$data" --device cpu -q "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
measure() {  # label: prints "label t1 tall tdefault"
  local one=() all=() def=()
  for _ in $(seq 1 "$rounds"); do
    one+=("$(timed --threads 1)")
    all+=("$(timed --threads "$cores")")
    def+=("$(timed)")
  done
  printf '%s %s %s %s\n' "$1" "$(printf '%s\n' "${one[@]}" | median)" \
    "$(printf '%s\n' "${all[@]}" | median)" "$(printf '%s\n' "${def[@]}" | median)"
}
{
  measure idle
  (while :; do :; done) &
  spinner=$!
  measure "busy(1)"
  kill $spinner
  spinner=
} >"$work/results"
echo "cifar-eval, $model, 10,000 test images, $cores cores, median of $rounds (seconds)"
echo "| machine | --threads 1 | --threads $cores | default | default / best |"
echo "|---|---:|---:|---:|---:|"
awk '{best = ($2 < $3) ? $2 : $3; printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", $1, $2, $3, $4, $4 / best}' \
  "$work/results"
