#!/usr/bin/env bash
# photos.sh: a shipped config on a folder of "photos" in train/ + val/
# layout, as a user would run it: the wall time of one cifar-train command,
# its validation accuracy at the last epoch, and cifar-eval and cifar-predict
# --csv on val/ agreeing with it.
#
#   scripts/bench/photos.sh [BUILD_DIR] [CIFAR_DIR] [CONFIG] [EXTRA_ARGS...]
#
# The folder is made by make_photos.py from CIFAR_DIR (cat and dog, 244
# training and 154 validation JPEGs of many sizes), once, in a temporary
# folder. CONFIG defaults to configs/photos.toml. Run it alone on the machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd)
cifar=$(cd "${2:-$here/../shared/cifar-10-batches-bin}" && pwd)
config=$(realpath "${3:-$here/configs/photos.toml}")
shift $(($# < 3 ? $# : 3))
py=${CIFAR_TORCH_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" "$here/scripts/bench/make_photos.py" "$cifar" "$work/photos" >/dev/null
cd "$work"
start=$(date +%s.%N)
"$build/apps/cifar-train" --config "$config" --data photos --device cpu --run-dir run \
  --checkpoint photos.pt "$@" >train.out 2>train.err || { tail train.err; exit 1; }
end=$(date +%s.%N)
val=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "val_accuracy") c = i } NR > 1 { v = $c } END { print v }' run/metrics.csv)
"$build/apps/cifar-eval" --checkpoint photos.pt --data photos/val --device cpu >eval.out 2>eval.err ||
  { tail eval.err; exit 1; }
"$build/apps/cifar-predict" --checkpoint photos.pt --csv pred.csv photos/val >/dev/null 2>pred.err ||
  { tail pred.err; exit 1; }
csv_acc=$("$py" - pred.csv <<'PY'
import csv, os, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
right = sum(os.path.basename(os.path.dirname(r[0])) == r[1] for r in rows)
print(f"{100 * right / len(rows):.2f} ({right}/{len(rows)})")
PY
)
echo "config: $config $*"
echo "machine: $(nproc) cores; wall time of cifar-train: $(echo "$end - $start" | bc) s"
echo "validation accuracy, last epoch (metrics.csv): $val"
echo "cifar-eval --data photos/val: $(grep -m1 '^Accuracy of the network' eval.out)"
echo "cifar-predict photos/val --csv: top-1 accuracy $csv_acc"
