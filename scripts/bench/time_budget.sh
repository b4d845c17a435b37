#!/usr/bin/env bash
# time_budget.sh: --time MINUTES as a user runs it (issue 53): one
# cifar-train command on a fresh copy of a photo folder (so it decodes every
# photo, as a first run does), its whole wall time against the budget, the
# epochs the last fit chose, the fits the log made, and the test accuracy.
#
#   scripts/bench/time_budget.sh [BUILD_DIR] DATA MINUTES [CONFIG] [EXTRA_ARGS...]
#
# CONFIG defaults to configs/photos.toml. Run it alone on the machine;
# ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 in its environment make the
# tools act as on an AVX2 CPU.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd)
data=$(cd "$2" && pwd)
minutes=$3
config=$(realpath "${4:-$here/configs/photos.toml}")
shift $(($# < 4 ? $# : 4))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$data" "$work/photos" && rm -rf "$work/photos/.cifar-cache" && chmod -R u+w "$work/photos"
cd "$work"
start=$(date +%s.%N)
"$build/apps/cifar-train" --config "$config" --data photos --device cpu --run-dir run \
  --checkpoint photos.pt --time "$minutes" "$@" >train.out 2>train.err || { tail train.err; exit 1; }
wall=$(echo "$(date +%s.%N) - $start" | bc)
budget=$(echo "$minutes * 60" | bc)
fits=$(grep -c "epochs fit it" train.err || true)
epochs=$(($(wc -l <run/metrics.csv) - 1))
accuracy=$(grep -m1 '^Accuracy of the network' train.out | grep -Eo '[0-9.]+ %' | head -1)  # top-1
printf 'budget %.0f s, wall %.1f s (%.3f of it), %d epochs (%d fits), test %s\n' \
  "$budget" "$wall" "$(echo "$wall / $budget" | bc -l)" "$epochs" "$fits" "$accuracy"
grep "epochs fit it" train.err | tail -1
