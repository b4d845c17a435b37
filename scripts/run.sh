#!/usr/bin/env bash
# run.sh: set up, build, and run cifar-train (the main job) in one command.
#
#   scripts/run.sh                         # a short run: the tutorial config, 1 epoch
#   scripts/run.sh --config configs/net-fast-cpu.toml
#
# Any arguments replace the short run's and go to cifar-train unchanged. The
# data is looked for in --data, $CIFAR10_DIR, ../shared/cifar-10-batches-bin,
# then data/cifar-10-batches-bin (scripts/download_cifar10.sh fills that).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
if [[ -z "${CIFAR10_DIR:-}" && -d ../shared/cifar-10-batches-bin ]]; then
  export CIFAR10_DIR="$PWD/../shared/cifar-10-batches-bin"
fi
if (($# == 0)); then
  set -- --config configs/tutorial.toml --epochs 1 --checkpoint net.pt
fi
exec build/release/apps/cifar-train "$@"
