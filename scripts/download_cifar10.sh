#!/usr/bin/env bash
# download_cifar10.sh: fetch the official CIFAR-10 binary archive into data/.
#
# Downloads cifar-10-binary.tar.gz from its home page, checks its md5 and
# unpacks data/cifar-10-batches-bin. Where there is no network it says so and
# how to use a copy that is already somewhere else (scripts/lib/fetch_archive.bash).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/fetch_archive.bash
fetch_archive CIFAR-10 "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz" \
  c32a1d4ab5d03f1284b67883e8d87530 "163 MB" cifar-10-batches-bin test_batch.bin \
  "export CIFAR10_DIR=/path/to/cifar-10-batches-bin"
