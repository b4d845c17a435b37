#!/usr/bin/env bash
# image_folder.sh: CIFAR-10 read from an image folder against the same images
# in the binary files, on the same recipe.
#
#   scripts/bench/image_folder.sh [BUILD_DIR] [DATA_DIR] [RECIPE] [SEEDS...]
#
# Writes DATA_DIR out as a folder of lossless PNGs (scripts/python/
# cifar_to_folder.py), then for each seed (default 0 1) trains RECIPE
# (default net-fast-cpu, its own epochs, --threads 2) from the binary files
# and from the folder, and prints each run's test accuracy and how long its
# data took to read (the folder's first read decodes and fills the cache, the
# later ones read the cache). Last, the binary run's checkpoint is evaluated
# on both copies of the test images: the figures must be the same.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd)
data=$(cd "${2:-$here/../shared/cifar-10-batches-bin}" && pwd)
recipe=${3:-net-fast-cpu}
shift $(($# < 3 ? $# : 3))
seeds=("$@")
((${#seeds[@]})) || seeds=(0 1)
python="${XDG_CACHE_HOME:-$HOME/.cache}/cifar-train/torch-2.11.0/bin/python"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)
"$python" "$here/scripts/python/cifar_to_folder.py" "$data" "$work/folder" >/dev/null
echo "PNG folder written in $(echo "$(date +%s.%N) - $start" | bc) s"
train() {  # name data seed
  "$build/apps/cifar-train" --config "$here/configs/$recipe.toml" --device cpu --data "$2" \
    --threads 2 --seed "$3" --no-tensorboard --run-dir "$work/$1" \
    --checkpoint "$work/$1.pt" >"$work/$1.json" 2>"$work/$1.err" || {
    tail -5 "$work/$1.err" >&2
    exit 1
  }
  local acc read
  acc=$(awk -F, 'END { printf "%.2f", 100 * $5 }' "$work/$1/metrics.csv")
  read=$(sed -nE 's/.*: ([0-9]+) images (decoded|read from the cache).* in ([0-9.]+) s.*/\1 \2 in \3 s/p' \
    "$work/$1.err" | paste -sd ';' -)
  printf "| %s | %s | %s | %s%% | %s |\n" "$recipe" "$1" "$3" "$acc" "${read:-binary files}"
}
echo "| recipe | data | seed | test accuracy | data read |"
echo "|---|---|---:|---:|---|"
for seed in "${seeds[@]}"; do
  train "binary-$seed" "$data" "$seed"
  train "folder-$seed" "$work/folder" "$seed"
done
for d in "$data" "$work/folder"; do
  "$build/apps/cifar-eval" --checkpoint "$work/binary-${seeds[0]}.pt" --data "$d" --threads 2 \
    --json >"$work/eval.json" 2>"$work/eval.err"
  "$python" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(sys.argv[2], "correct", r["correct"], "of", r["total"], "per class", r["per_class"])' \
    "$work/eval.json" "$(basename "$d")"
done
