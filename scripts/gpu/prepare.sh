#!/usr/bin/env bash
# prepare.sh: gathers into .gpu-kit/ (git-ignored, at most 60 MiB) all that a
# GPU machine with Python, the torch 2.11.0 wheel, CMake and nvcc but no
# internet lacks to run this project's GPU checks (scripts/gpu/check.sh):
# the release binaries, built here against the same wheel and CUDA-enabled,
# stripped; the shared libraries they need beyond glibc and the wheel (spdlog,
# fmt, toml++, libpng, libjpeg, OpenSSL's libcrypto, zlib; libstdc++ as a
# fallback); a subset of the real CIFAR-10 files; and the reference,
# airbench94 as PyPI publishes it (the airbench package, 40 KB). The binaries travel
# rather than -dev packages and sources: nothing is compiled there, so the
# machine's minutes go to the checks (a build takes ~40 CPU-minutes).
#
#   scripts/gpu/prepare.sh [--kit DIR] [--build-dir DIR] [--no-build]
#                          [--data DIR | --no-data] [--train-images N] [--test-images N]
#                          [--full-data]
#
# --no-build takes the binaries as they are in the build folder (default
# build/release, built with `cmake --build` first); --no-data leaves the data
# out (CI's quick proof). Data: --data, else $CIFAR10_DIR, else ../shared/.
# --full-data also packs the whole data set into .gpu-data/ (git-ignored;
# data_pack.py: about 89 MB in parts of 30 MiB, kept when the data has not
# changed) and prints the calls that carry it: the first with the kit, the
# next ones while the machine is still held (it keeps what earlier calls
# left), the last running check.sh, which then reports on all 50,000
# training images.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/kit_lib.bash"

kit="$repo/.gpu-kit"
build="$repo/build/release"
do_build=1
data="${CIFAR10_DIR:-$repo/../shared/cifar-10-batches-bin}"
train_images=10000 # first images of data_batch_1.bin
test_images=2500   # first images of test_batch.bin (5,000 put the kit over 60 MiB at 80cc734)
max_bytes=$((60 * 1024 * 1024))
full_data=0
while (($#)); do
  case "$1" in
    --kit) kit="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --data) data="$2"; shift 2 ;;
    --no-data) data=""; shift ;;
    --train-images) train_images="$2"; shift 2 ;;
    --test-images) test_images="$2"; shift 2 ;;
    --full-data) full_data=1; shift ;;  # the kit then carries no subset
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "error: $*" >&2; exit 1; }
((train_images >= 1 && train_images <= 10000 && test_images >= 1 && test_images <= 10000)) ||
  die "--train-images and --test-images must be in 1..10000, got $train_images and $test_images"
start=$(date +%s)

# 1. The binaries, built incrementally in the usual build folder.
if ((do_build)); then
  if [[ ! -f "$build/build.ninja" && ! -f "$build/Makefile" ]]; then
    [[ "$build" == "$repo/build/release" ]] || die "$build is not configured"
    (cd "$repo" && cmake --preset release)
  fi
  cmake --build "$build" --target "${KIT_BINARIES[@]}"
fi
declare -A source_of=(
  [cifar-train]=apps [cifar-eval]=apps [cifar-predict]=apps [cifar-export]=apps
  [cifar_cuda_tests]=tests [cifar_dist_driver]=tests)
for name in "${KIT_BINARIES[@]}"; do
  [[ -x "$build/${source_of[$name]}/$name" ]] ||
    die "no $build/${source_of[$name]}/$name: build it (or drop --no-build)"
done

python=$(kit_python)
site=$(kit_site_packages "$python")
staging="$kit.new"
rm -rf "$staging"
mkdir -p "$staging/bin" "$staging/lib/compat" "$staging/data"
# Each binary's search path becomes $ORIGIN/../lib alone (kit_lib.bash), as
# an RPATH, which also serves the kit libraries' own dependencies (libpng's
# libz): the build tree's RUNPATH names this machine's wheel, which the GPU
# machine reaches through LD_LIBRARY_PATH instead.
runpath_script="$staging/set_runpath.cmake"
echo 'file(RPATH_SET FILE "${FILE}" NEW_RPATH "${RUNPATH}")' >"$runpath_script"
for name in "${KIT_BINARIES[@]}"; do
  cp "$build/${source_of[$name]}/$name" "$staging/bin/$name"
  strip --strip-unneeded "$staging/bin/$name"
  cmake -DFILE="$staging/bin/$name" -DRUNPATH="$KIT_RPATH" -P "$runpath_script" >/dev/null
  "$python" "$here/rpath_tag.py" "$staging/bin/$name"
done
rm "$runpath_script"
[[ "$(readelf -d "$staging/bin/cifar-train")" == *"[libtorch_cuda.so]"* ]] ||
  die "$build's cifar-train does not link libtorch_cuda: configure against the CUDA wheel"

# 2. The libraries: what the binaries resolve outside glibc and the wheel.
search="$site/torch/lib:$site/nvidia/cu13/lib"
while read -r lib path; do
  if [[ "$KIT_SYSTEM_LIBS" == *" $lib "* || "$path" == "$site/"* ]]; then
    continue
  elif [[ "$path" == "not" ]]; then
    die "$lib is needed but not found here"
  elif [[ "$KIT_COMPAT_LIBS" == *" $lib "* ]]; then
    cp -L "$path" "$staging/lib/compat/$lib"
  else
    cp -L "$path" "$staging/lib/$lib"
  fi
done < <(for name in "${KIT_BINARIES[@]}"; do
  env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$search" ldd "$staging/bin/$name"
done | sed -n 's/^\t\([^ ]*\) => \([^ ]*\).*/\1 \2/p' | sort -u)

# 3. The data: the first images of one training file and of the test file
# (none with --full-data: the parts bring the whole set, step 5).
if [[ -n "$data" ]] && ((!full_data)); then
  [[ -f "$data/data_batch_1.bin" && -f "$data/test_batch.bin" ]] ||
    die "no CIFAR-10 binary files in $data: pass --data DIR or --no-data"
  subset=$(mktemp -d)
  head -c $((train_images * 3073)) "$data/data_batch_1.bin" >"$subset/train.bin"
  head -c $((test_images * 3073)) "$data/test_batch.bin" >"$subset/test.bin"
  XZ_OPT="-6 -T0" tar -C "$subset" -cJf "$staging/data/cifar10-subset.tar.xz" train.bin test.bin
  rm -rf "$subset"
fi

# 3b. The reference: airbench94 as PyPI publishes it (the airbench package
# scripts/setup.sh installs), which check.sh runs beside
# configs/airbench94.toml (reference_airbench.py).
airbench=$("$python" -c 'import airbench, os; print(os.path.dirname(airbench.__file__))' 2>/dev/null) ||
  die "no airbench in $python's environment: run scripts/setup.sh (it installs airbench==0.1.8)"
mkdir -p "$staging/reference"
cp -r "$airbench" "$staging/reference/airbench"
rm -rf "$staging/reference/airbench/__pycache__"

# 4. What the kit was made from, and what the GPU machine must have.
rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$repo" diff --quiet HEAD -- src apps tests 2>/dev/null || rev="$rev+uncommitted"
cat >"$staging/kit.env" <<ENV
KIT_REV=$rev
KIT_MADE=$(date -u +%Y-%m-%dT%H:%MZ)
KIT_TORCH=$("$python" -c 'import torch; print(torch.__version__)')
KIT_GLIBC=$(kit_newest_version GLIBC_ "$staging"/bin/* "$staging"/lib/*.so*)
KIT_GLIBC_COMPAT=$(kit_newest_version GLIBC_ "$staging"/lib/compat/*)
KIT_GLIBCXX=$(kit_newest_version GLIBCXX_ "$staging"/bin/* "$staging"/lib/*.so*)
KIT_TRAIN_IMAGES=$([[ -n "$data" ]] && ((!full_data)) && echo "$train_images" || echo 0)
KIT_TEST_IMAGES=$([[ -n "$data" ]] && ((!full_data)) && echo "$test_images" || echo 0)
KIT_AIRBENCH=$("$python" -c 'from importlib.metadata import version; print(version("airbench"))')
ENV

size=$(du -sb "$staging" | cut -f1)
((size <= max_bytes)) || die "the kit is $((size >> 20)) MiB, over 60 MiB: fewer --train-images?"
rm -rf "$kit"
mv "$staging" "$kit"
"$here/kit_complete.sh" "$kit"
echo "kit: $kit, $(du -sh "$kit" | cut -f1) ($size bytes), made in $(($(date +%s) - start)) s"
cat "$kit/kit.env"

# 5. The whole data set, in parts, and the calls that carry them.
if ((full_data)); then
  [[ -n "$data" ]] || die "--full-data needs the data: drop --no-data"
  parts="$repo/.gpu-data"
  if "$python" "$here/data_pack.py" current "$data" "$parts"; then
    echo "data: $parts is packed from $data already"
  else
    rm -rf "$parts"
    "$python" "$here/data_pack.py" pack "$data" "$parts"
  fi
  "$python" "$here/data_pack.py" calls "$parts" --kit-bytes "$size" \
    --tree-bytes "$(git -C "$repo" ls-files -z | (cd "$repo" && xargs -0 du -cb 2>/dev/null) | tail -1 | cut -f1)"
fi
