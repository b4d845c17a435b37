#!/usr/bin/env bash
# run.sh: set up, build the tools, and run cifar-train (the main job) in one command.
#
#   scripts/run.sh                         # a short run: the tutorial config, 1 epoch
#   scripts/run.sh --config configs/net-fast-cpu.toml
#
# Any arguments replace the short run's and go to cifar-train unchanged. The
# data is looked for in --data, $CIFAR10_DIR, ../shared/cifar-10-batches-bin,
# then data/cifar-10-batches-bin (scripts/download_cifar10.sh fills that).
#
# It builds only the four tools (cifar-train, cifar-eval, cifar-export,
# cifar-predict), not the tests: scripts/test.sh builds and runs those.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
tools=(cifar-train cifar-eval cifar-export cifar-predict)
if [[ ! -x build/release/apps/cifar-train ]]; then
  # Measured on the 2-core project machine (docs/reference.md, "Build time").
  echo "[run] first build of the four tools: about 20 minutes on 2 cores (LibTorch's headers are large);" \
       "later builds recompile only what changed"
fi
start=$(date +%s)
cmake --build --preset release --target "${tools[@]}"
echo "[run] build: $(( $(date +%s) - start ))s"
if [[ -z "${CIFAR10_DIR:-}" && -d ../shared/cifar-10-batches-bin ]]; then
  export CIFAR10_DIR="$PWD/../shared/cifar-10-batches-bin"
fi
if (($# == 0)); then
  set -- --config configs/tutorial.toml --epochs 1 --checkpoint net.pt
fi
exec build/release/apps/cifar-train "$@"
