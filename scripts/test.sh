#!/usr/bin/env bash
# test.sh: the one command that sets up, builds and runs every test.
#
#   scripts/test.sh            # set-up (idempotent), Release build, ctest
#   scripts/test.sh -R cli     # extra arguments go to ctest
#
# Real-data tests read ../shared/cifar-10-batches-bin beside the clone (or
# $CIFAR10_DIR) and are skipped, saying so, when it is not there.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release "$@"
echo "[test] total $(( $(date +%s) - start ))s"
