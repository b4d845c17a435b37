#!/usr/bin/env bash
# recipe_weights.sh: the weights each recipe writes after one epoch, as
# SHA-256 sums, to show that a change kept behaviour byte for byte.
#
#   scripts/bench/recipe_weights.sh [BUILD_DIR] [DATA_DIR] [RECIPES...]
#
# Each recipe (configs/<name>.toml; default: tutorial net-fast-cpu
# airbench94) trains 1 epoch on the CPU with --threads 2 --seed 5 (the thread
# count fixed, so the run does not depend on the machine's load), evaluating
# on 2,000 test images; prints "<sha256>  <recipe>" of its model.safetensors.
# Run it with the build before and after a change and compare the lines
# (airbench94 takes about 2 minutes on 2 cores, the others seconds).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd)
data=$(cd "${2:-$here/../shared/cifar-10-batches-bin}" && pwd)
shift $(($# < 2 ? $# : 2))
recipes=("$@")
((${#recipes[@]})) || recipes=(tutorial net-fast-cpu airbench94)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in "${recipes[@]}"; do
  "$build/apps/cifar-train" --config "$here/configs/$r.toml" --device cpu --data "$data" \
    --epochs 1 --threads 2 --seed 5 --test-limit 2000 --no-tensorboard \
    --run-dir "$work/$r" --checkpoint "$work/$r.pt" >"$work/$r.out" 2>"$work/$r.err" || {
    echo "$r failed:" >&2
    tail -5 "$work/$r.err" >&2
    exit 1
  }
  echo "$(sha256sum <"$work/$r/model.safetensors" | cut -d' ' -f1)  $r"
done
