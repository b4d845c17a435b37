#!/usr/bin/env bash
# gpu_kit.sh (ctest gpu_kit.complete): CI's quick proof that the GPU check kit
# is complete. It makes a kit, without data, from the binaries just built
# (scripts/gpu/prepare.sh --no-build --no-data) in a temporary folder; prepare.sh
# ends with scripts/gpu/kit_complete.sh, which fails unless every binary is
# there and CUDA-enabled, every library it needs resolves, in a clean
# environment, from the kit, the torch wheel or glibc, and each one starts.
#
#   tests/gpu_kit.sh SOURCE_DIR BUILD_DIR     (exit 77: no Python with torch here)
set -uo pipefail
source_dir="$1" build_dir="$2"
source "$source_dir/scripts/gpu/kit_lib.bash"
kit_python >/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$source_dir/scripts/gpu/prepare.sh" --no-build --no-data --build-dir "$build_dir" \
  --kit "$tmp/kit"
