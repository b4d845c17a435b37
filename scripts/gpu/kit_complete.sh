#!/usr/bin/env bash
# kit_complete.sh: proves a GPU check kit (scripts/gpu/prepare.sh) complete
# without a GPU: every binary is there and CUDA-enabled, every shared library
# it needs resolves, in a clean environment, from the kit, the torch wheel or
# glibc alone (none from this system's other packages), each binary's search
# path is an RPATH of the kit's own lib/ ($ORIGIN-relative) and nothing else
# (no empty entry, which the loader reads as the current directory), and each
# binary starts.
# Used by check.sh as its first step, and by CI (ctest gpu_kit.complete).
#
#   scripts/gpu/kit_complete.sh [KIT]     (default .gpu-kit; exit 0 complete, 1 not)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/kit_lib.bash"
kit=$(cd "${1:-$here/../../.gpu-kit}" 2>/dev/null && pwd) ||
  { echo "error: no kit at ${1:-.gpu-kit}: run scripts/gpu/prepare.sh" >&2; exit 1; }
python=$(kit_python) || exit 1
site=$(kit_site_packages "$python") || exit 1
ld_path=$(kit_library_path "$kit" "$site")
clean=(env -i PATH=/usr/bin:/bin HOME="$HOME" LD_LIBRARY_PATH="$ld_path")
problems=0
fail() { echo "FAIL: $*"; problems=$((problems + 1)); }

echo "kit: $kit"
echo "torch wheel: $site (via $python)"
echo "LD_LIBRARY_PATH=$ld_path"
[[ -f "$kit/kit.env" ]] || fail "no kit.env in $kit"
for name in "${KIT_BINARIES[@]}"; do
  binary="$kit/bin/$name"
  if [[ ! -x "$binary" ]]; then
    fail "$name: missing from $kit/bin"
    continue
  fi
  runpath=$(kit_runpath_entries "$binary" | paste -sd:)
  [[ "$runpath" == "$KIT_RPATH" && "$(readelf -d "$binary")" == *"(RPATH)"* ]] ||
    fail "$name: its search path is '$runpath', not an RPATH of $KIT_RPATH alone" \
      "(prepare.sh sets it)"
  resolved=$("${clean[@]}" ldd "$binary" 2>&1)
  from_kit=0 from_wheel=0 from_glibc=0
  while read -r lib _ path _; do
    [[ -n "$lib" ]] || continue
    case "$lib" in /*) path="$lib" lib=$(basename "$lib") ;; esac
    if [[ "$path" == "not" ]]; then
      fail "$name needs $lib, found nowhere (not in $kit/lib nor the torch wheel)"
    elif [[ "$KIT_SYSTEM_LIBS" == *" $lib "* ]]; then
      from_glibc=$((from_glibc + 1))
    elif [[ "$path" == "$kit/"* ]]; then
      from_kit=$((from_kit + 1))
    elif [[ "$path" == "$site/"* ]]; then
      from_wheel=$((from_wheel + 1))
    elif [[ "$KIT_COMPAT_LIBS" == *" $lib "* && -f "$kit/lib/compat/$lib" ]]; then
      from_glibc=$((from_glibc + 1))
    else
      fail "$name needs $lib, resolved from this system ($path), not from the kit:" \
        "prepare.sh must carry it"
    fi
  done < <(sed -n 's/^\t//p' <<<"$resolved" | sed 's/ (0x[0-9a-f]*)//')
  echo "$name: $from_kit libraries from the kit, $from_wheel from the torch wheel," \
    "$from_glibc from glibc/libstdc++"
done
if [[ -x "$kit/bin/cifar-train" ]]; then
  # Into a variable first: grep -q in a pipe under pipefail can fail on SIGPIPE.
  linked=$("${clean[@]}" ldd "$kit/bin/cifar-train" 2>&1)
  for lib in libtorch_cuda.so libc10_cuda.so; do
    [[ "$linked" == *"$lib "* ]] ||
      fail "cifar-train does not link $lib: a build without CUDA cannot check the GPU paths"
  done
  version=$("${clean[@]}" "$kit/bin/cifar-train" --version 2>&1) ||
    fail "cifar-train --version: $version"
  echo "cifar-train --version: $version"
fi
if [[ -x "$kit/bin/cifar_cuda_tests" ]]; then
  count=$("${clean[@]}" "$kit/bin/cifar_cuda_tests" --list-test-names-only "[cuda]" 2>&1 |
    grep -c .)
  ((count > 0)) || fail "cifar_cuda_tests lists no [cuda] test"
  echo "cifar_cuda_tests: $count [cuda] tests"
fi
for name in cifar-eval cifar-predict cifar-export; do
  [[ -x "$kit/bin/$name" ]] || continue
  "${clean[@]}" "$kit/bin/$name" --version >/dev/null 2>&1 || fail "$name --version failed"
done
if [[ -x "$kit/bin/cifar_dist_driver" ]]; then
  "${clean[@]}" "$kit/bin/cifar_dist_driver" --help >/dev/null 2>&1 ||
    fail "cifar_dist_driver --help failed"
fi
# The reference the check runs beside airbench94 (check_reference.sh).
if [[ -f "$kit/reference/airbench/lib_airbench94.py" ]]; then
  echo "reference: airbench $(sed -n 's/^KIT_AIRBENCH=//p' "$kit/kit.env")"
else
  fail "no airbench in $kit/reference (prepare.sh copies it from scripts/setup.sh's environment)"
fi
if ((problems)); then
  echo "kit incomplete: $problems problem(s)"
  exit 1
fi
echo "kit complete"
