# kit_lib.bash: what scripts/gpu/prepare.sh, check.sh and kit_complete.sh share
# about the GPU check kit: its layout, the Python whose torch wheel supplies
# LibTorch and the CUDA libraries, the library search path the kit's binaries
# run with, and which libraries may come from the system rather than the kit.
#
# Where the binaries find libraries: the kit's own (lib/: spdlog, fmt, libz,
# libcrypto, ...) through their RPATH, $ORIGIN/../lib, which prepare.sh
# writes in place of the build tree's RUNPATH (an RPATH also serves the kit
# libraries' own dependencies); LibTorch and the CUDA runtime through
# LD_LIBRARY_PATH, which holds only the GPU machine's torch wheel folders (and
# lib/compat where the system's libstdc++ is too old), so that check.sh's
# Python steps, which share that environment, never load the kit's libraries.
#
# Kit layout (.gpu-kit/ by default, git-ignored):
#   bin/          cifar-train, cifar-eval, cifar-predict, cifar-export,
#                 cifar_cuda_tests, cifar_dist_driver (stripped, CUDA-enabled)
#   lib/          every shared library they need beyond glibc and the torch wheel
#   lib/compat/   libstdc++ and libgcc_s, put on the path only where the
#                 system's libstdc++ is older than the one the binaries need
#   data/         a subset of the real CIFAR-10 files, xz-compressed
#   reference/    airbench, the published airbench94 (reference_airbench.py runs it)
#   kit.env       what the kit was built from (shell variables)

KIT_BINARIES=(cifar-train cifar-eval cifar-predict cifar-export cifar_cuda_tests cifar_dist_driver)
# The only entry of the kit binaries' RPATH (literally: the loader expands $ORIGIN).
KIT_RPATH='$ORIGIN/../lib'

# Libraries every x86-64 glibc system has; all others come from the kit or
# the torch wheel.
KIT_SYSTEM_LIBS=" linux-vdso.so.1 ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libutil.so.1 "
# Carried in lib/compat, used from the system when it is new enough.
KIT_COMPAT_LIBS=" libstdc++.so.6 libgcc_s.so.1 "

# A Python that imports torch: $CIFAR_PYTHON, else python3 (the GPU
# machine's), else the venv scripts/setup.sh makes.
kit_python() {
  local venv="${XDG_CACHE_HOME:-$HOME/.cache}/cifar-train/torch-2.11.0/bin/python"
  local candidate
  for candidate in "${CIFAR_PYTHON:-}" python3 "$venv"; do
    [[ -n "$candidate" ]] || continue
    if "$candidate" -c 'import torch' >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  echo "error: no Python that imports torch (tried \$CIFAR_PYTHON, python3, $venv);" \
    "set CIFAR_PYTHON" >&2
  return 1
}

# The site-packages folder holding the torch wheel and its nvidia-* packages.
kit_site_packages() {
  "$1" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))'
}

# LD_LIBRARY_PATH for the kit's binaries (and whatever else check.sh runs):
# the compat folder when the system's libstdc++ is too old, LibTorch, and the
# CUDA runtime from the nvidia-* wheels. Not the kit's lib/: the binaries'
# RPATH finds it, and nothing else should.
kit_library_path() {
  local kit="$1" site="$2"
  # The binaries need libcudart directly: the nvidia-* wheel's copy, wherever it is.
  local cudart
  cudart=$(find "$site/nvidia" -name 'libcudart.so.*' -print -quit 2>/dev/null)
  local path="$site/torch/lib:$(dirname "${cudart:-$site/nvidia/cu13/lib/x}")"
  # compat first, when needed at all: it must shadow the system's libstdc++.
  if ! kit_system_libstdcxx_ok "$kit"; then path="$kit/lib/compat:$path"; fi
  echo "$path"
}

# True when the system's libstdc++ has the newest GLIBCXX version the kit's
# binaries need (kit.env's KIT_GLIBCXX).
kit_system_libstdcxx_ok() {
  local kit="$1" need system
  need=$(sed -n 's/^KIT_GLIBCXX=//p' "$kit/kit.env" 2>/dev/null)
  [[ -n "$need" ]] || return 0
  system=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')
  [[ -n "$system" ]] && grep -qa "GLIBCXX_$need" "$system"
}

# Newest symbol version with prefix $1 (GLIBC_ or GLIBCXX_) that the files
# $2... ask for, e.g. 3.4.30.
kit_newest_version() {
  local prefix="$1"
  shift
  objdump -T "$@" 2>/dev/null | grep -o "${prefix}[0-9][0-9.]*" | sed "s/^$prefix//" |
    sort -V | tail -1
}

# The entries of FILE's RUNPATH (or RPATH), one a line; an empty entry (the
# current directory, to the loader) as an empty line.
kit_runpath_entries() {
  readelf -d "$1" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p' |
    awk -F: '{ if (NF == 0) print ""; for (i = 1; i <= NF; i++) print $i }'
}
