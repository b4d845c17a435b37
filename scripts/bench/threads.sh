#!/usr/bin/env bash
# threads.sh: cifar-train's default thread count (the rule of
# platform/cpu_plan.h: the physical cores other processes leave free, one
# thread at batch 8 or less) against fixed counts, idle and beside one busy
# process.
#
#   scripts/bench/threads.sh [BUILD_DIR] [DATA_DIR] [ROUNDS] [LIMITS] [BATCHES]
#
# For the net at each batch size of BATCHES (default "4 256") and each
# training-set size of LIMITS (default "25600 0": a 25,600-image epoch and a
# full one; 0 is all 50,000), trains one epoch on the CPU ROUNDS times
# (default 3), in turn: the default, --threads 1 and --threads N (N the
# machine's cores). Each run's figure is the training img/s of metrics.csv
# (the epoch's own time). Prints the medians and the default's ratio to each
# fixed count and to the best of them (the goal: 0.95 or more idle, 0.9 or
# more beside the busy process), then the last default run's thread lines
# (its starting count and any change the load brought). Beside the busy
# process, --threads N at batch 8 or less trains on 2,560 images only
# (marked *): it collapses to tens of img/s, and a full epoch there would
# take an hour; its img/s is still its rate. Does it all idle, then beside a
# process spinning on one core. Run it on an otherwise idle machine; a quick
# check that it works:
#   scripts/bench/threads.sh "" "" 1 2560
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd)
data=$(cd "${2:-$here/../shared/cifar-10-batches-bin}" && pwd)
rounds=${3:-3}
limits=${4:-25600 0}
batches=${5:-4 256}
cores=$(nproc)
work=$(mktemp -d)
spinner=
trap '[[ -n $spinner ]] && kill $spinner 2>/dev/null; rm -rf "$work"' EXIT
unset OMP_NUM_THREADS  # it would fix the count

# img/s of one run: batch, limit, label, then extra flags; keeps its log as $work/<label>.err
run() {
  local batch=$1 limit=$2 label=$3 lr=0.001
  shift 3
  ((batch > 8)) && lr=0.05
  rm -rf "$work/run"
  "$build/apps/cifar-train" --data "$data" --device cpu --model net --epochs 1 \
    --batch-size "$batch" --lr "$lr" --train-limit "$limit" --test-limit 100 \
    --no-tensorboard --log-interval 30 --run-dir "$work/run" --checkpoint "$work/m.pt" \
    "$@" >/dev/null 2>"$work/$label.err" || { tail "$work/$label.err"; exit 1; }
  awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "images_per_second") c = i}
           NR > 1 {v = $c} END {print v}' "$work/run/metrics.csv"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# One table row: machine, batch, limit; the medians and the ratios.
measure() {
  local machine=$1 batch=$2 limit=$3 def=() one=() all=() all_limit=$3 mark=
  if [[ $machine != idle ]] && ((batch <= 8)); then all_limit=2560 mark='*'; fi
  for _ in $(seq 1 "$rounds"); do
    def+=("$(run "$batch" "$limit" default)")
    one+=("$(run "$batch" "$limit" one --threads 1)")
    all+=("$(run "$batch" "$all_limit" all --threads "$cores")")
  done
  local d o a
  d=$(printf '%s\n' "${def[@]}" | median)
  o=$(printf '%s\n' "${one[@]}" | median)
  a=$(printf '%s\n' "${all[@]}" | median)
  awk -v m="$machine" -v b="$batch" -v l="$limit" -v d="$d" -v o="$o" -v a="$a" -v k="$mark" 'BEGIN {
    best = (o > a) ? o : a
    printf "| %s | %s | %s | %.0f | %.0f | %.0f%s | %.2f | %.2f | %.2f |\n",
      m, b, (l == 0 ? "50000" : l), d, o, a, k, d / o, d / a, d / best }'
  local start changes
  start=$(grep -o "device: cpu, [0-9]* threads\?" "$work/default.err" | grep -o "[0-9]*" || true)
  changes=$(grep -o "threads: [0-9]* -> [0-9]* at [a-z ]*[0-9]*" "$work/default.err" | tr '\n' ';' || true)
  echo "$machine batch $batch limit $limit: started at ${start:-?} threads; ${changes:-no change}" \
    >>"$work/threads"
}
table() {
  local machine=$1
  for batch in $batches; do
    for limit in $limits; do measure "$machine" "$batch" "$limit"; done
  done
}
{
  table idle
  (while :; do :; done) &
  spinner=$!
  table "busy(1)"
  kill $spinner
  spinner=
} >"$work/results"
echo "cifar-train --model net, 1 epoch, $cores cores, median of $rounds runs (training img/s)"
echo "| machine | batch | images | default | --threads 1 | --threads $cores | default / 1 | default / $cores | default / best |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
cat "$work/results"
echo
cat "$work/threads"
