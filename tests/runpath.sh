#!/usr/bin/env bash
# runpath.sh (ctest build.runpath): the library search path (RUNPATH, or an
# old linker's RPATH) of every binary the build makes and of every tool
# `cmake --install` installs holds only the torch wheel's folders (issue 32):
# no empty entry (the loader reads one as the current directory, searched
# before the system's folders), no relative one, none outside the wheel
# (the folders of an MKL that is not there, /usr/local/cuda). The GPU kit's
# binaries are held to $ORIGIN-relative entries by scripts/gpu/kit_complete.sh.
#
#   tests/runpath.sh BUILD_DIR WHEEL_DIR    (WHEEL_DIR: the site-packages folder holding torch/)
set -uo pipefail
build=$(cd "$1" && pwd) || exit 1
wheel=$(cd "$2" && pwd -P) || exit 1
command -v readelf >/dev/null || { echo "SKIPPED: no readelf (binutils)"; exit 77; }
problems=0 checked=0
fail() { echo "FAIL: $*"; problems=$((problems + 1)); }

# The entries of FILE's RUNPATH and RPATH, one a line, empty ones as empty lines.
entries() {
  readelf -d "$1" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p' |
    awk -F: '{ if (NF == 0) print ""; for (i = 1; i <= NF; i++) print $i }'
}

# check FILE LABEL: every entry an existing absolute folder inside the wheel.
check() {
  local file=$1 label=$2 entry real count=0
  while IFS= read -r entry; do
    count=$((count + 1))
    if [[ -z $entry ]]; then
      fail "$label: an empty entry (the current directory) in its search path: $(entries "$file" | paste -sd:)"
    elif [[ $entry != /* ]]; then
      fail "$label: a relative entry '$entry' in its search path"
    elif ! real=$(cd "$entry" 2>/dev/null && pwd -P) || [[ $real != "$wheel"/* ]]; then
      fail "$label: '$entry' in its search path is not a folder of the torch wheel ($wheel)"
    fi
  done < <(entries "$file")
  checked=$((checked + 1))
  echo "$label: ${count} entr$( ((count == 1)) && echo y || echo ies): $(entries "$file" | paste -sd:)"
}

is_elf() { [[ -f $1 && -x $1 && "$(head -c 4 "$1" 2>/dev/null | tr -d '\0')" == $'\x7fELF' ]]; }

for dir in "$build/apps" "$build/tests" "$build/fuzz"; do
  [[ -d $dir ]] || continue
  for file in "$dir"/*; do
    is_elf "$file" && check "$file" "build: ${file#"$build"/}"
  done
done
((checked > 0)) || fail "no binary found under $build/apps or $build/tests: build first"

prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake_bin=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt")
if "${cmake_bin:-cmake}" --install "$build" --prefix "$prefix" >"$prefix/install.log" 2>&1; then
  for file in "$prefix"/bin/*; do
    is_elf "$file" && check "$file" "installed: bin/$(basename "$file")"
  done
else
  tail -20 "$prefix/install.log"
  fail "cmake --install $build failed"
fi
((problems == 0)) || { echo "$problems problem(s) in $checked binaries"; exit 1; }
echo "ok: $checked binaries search only the torch wheel's folders ($wheel)"
