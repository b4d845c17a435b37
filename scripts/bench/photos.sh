#!/usr/bin/env bash
# photos.sh: a shipped config on a folder of photos in train/ + val/
# layout, as a user would run it: the wall time of one cifar-train command
# (the first, decoding the JPEGs included), its forecast, its validation
# accuracy at the last epoch, and cifar-eval and cifar-predict --csv on val/
# agreeing with it.
#
#   scripts/bench/photos.sh [BUILD_DIR] [DATA] [CONFIG] [EXTRA_ARGS...]
#
# DATA is a photo folder (DIR/train/<class>/, DIR/val/<class>/: the real
# ../shared/photos/flowers, the default), copied to a temporary folder so its
# image cache is written there; or a CIFAR-10 binary folder, from which
# make_photos.py makes one (cat and dog, 244 training and 154 validation
# JPEGs of many sizes). CONFIG defaults to configs/photos.toml. Run it alone
# on the machine; ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 in its
# environment make the tools act as on an AVX2 CPU (the log's first lines
# say what they saw).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd)
data=$(cd "${2:-$here/../shared/photos/flowers}" && pwd)
config=$(realpath "${3:-$here/configs/photos.toml}")
shift $(($# < 3 ? $# : 3))
py=${CIFAR_TORCH_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -d $data/train ]]; then
  cp -r "$data" "$work/photos" && chmod -R u+w "$work/photos"
else
  "$py" "$here/scripts/bench/make_photos.py" "$data" "$work/photos" >/dev/null
fi
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
echo "config: $config $*; data: $data"
grep -m2 -o 'info: \(cpu capability\|precision\): .*' train.err || true
grep -o 'expected training time: .*' train.err || echo "no forecast (the run took under 30 s)"
echo "machine: $(lscpu | sed -n "s/^Model name: *//p"), $(nproc) cores; wall time of cifar-train: $(echo "$end - $start" | bc) s"
echo "validation accuracy, last epoch (metrics.csv): $val"
echo "cifar-eval --data photos/val: $(grep -m1 '^Accuracy of the network' eval.out)"
echo "cifar-predict photos/val --csv: top-1 accuracy $csv_acc"
