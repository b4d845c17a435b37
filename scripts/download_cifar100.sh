#!/usr/bin/env bash
# download_cifar100.sh: fetch the official CIFAR-100 binary archive into data/.
#
# Downloads cifar-100-binary.tar.gz from its home page, checks its md5 and
# unpacks data/cifar-100-binary (train.bin, test.bin, fine_label_names.txt,
# coarse_label_names.txt). Where there is no network it says so and how to
# use a copy that is already somewhere else (scripts/lib/fetch_archive.bash). Then:
#   cifar-train --data data/cifar-100-binary ...   (--labels coarse: the 20 superclasses)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/fetch_archive.bash
fetch_archive CIFAR-100 "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz" \
  03b5dce01913d631647c71ecec9e9cb8 "161 MB" cifar-100-binary test.bin
