#!/usr/bin/env bash
# tidy.sh: clang-tidy over the library's sources, with the checks in .clang-tidy.
#
#   scripts/tidy.sh                                   # every .cpp of src/cifar (slow: minutes)
#   scripts/tidy.sh src/cifar/core/types.cpp ...      # just these files (.cpp or .h)
#   CLANG_TIDY_ARGS='--checks=-*,performance-*' scripts/tidy.sh FILE   # other checks (or --fix)
#
# It uses build/release/compile_commands.json (configuring the release preset
# first when it is missing) without the precompiled header: the build's PCH
# is GCC's, which clang cannot read, so each file is parsed with its own
# includes (a few seconds per file: LibTorch's headers are large). A header
# is checked through a .cpp of the same name when there is one. Findings are
# printed per file, then counted per check; the exit status is 1 when there
# are any, 2 when clang-tidy could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tidy=${CLANG_TIDY:-clang-tidy}
command -v "$tidy" >/dev/null ||
  { echo "[tidy] error: $tidy not found: run scripts/setup.sh (it installs clang-tidy)" >&2; exit 2; }
db=build/release/compile_commands.json
if [[ ! -f $db ]]; then
  echo "[tidy] no $db yet: configuring the release preset"
  cmake --preset release >/dev/null
fi

# A copy of the compilation database without GCC's precompiled header.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$db" "$work/compile_commands.json" <<'PY'
import json, shlex, sys
entries = json.load(open(sys.argv[1]))
for e in entries:
    args = e.pop("arguments", None) or shlex.split(e.pop("command"))
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-include" :
            skip = True   # the next argument is the cmake_pch.hxx
            continue
        if a == "-Winvalid-pch" or (a.startswith("-include") and "cmake_pch" in a):
            continue
        out.append(a)
    e["arguments"] = out
json.dump(entries, open(sys.argv[2], "w"))
PY

files=()
if (($#)); then
  for f in "$@"; do
    [[ -f $f ]] || { echo "[tidy] error: no such file: $f" >&2; exit 2; }
    if [[ $f == *.h && -f ${f%.h}.cpp ]]; then f=${f%.h}.cpp; fi
    files+=("$(realpath "$f")")
  done
else
  mapfile -t files < <(find "$root/src/cifar" -name '*.cpp' | sort)
fi
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)

echo "[tidy] $tidy ($("$tidy" --version | sed -n 's/.*LLVM version //p')) on ${#files[@]} file(s)"
log=$work/tidy.log
failed=0
for f in "${files[@]}"; do
  echo "[tidy] ${f#"$root"/}"
  # clang-tidy exits non-zero on compiler errors; the findings still go to the log.
  "$tidy" -p "$work" --quiet ${CLANG_TIDY_ARGS:-} "$f" >>"$log" 2>"$work/stderr" || failed=1
  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed|^Use -header-filter' \
    "$work/stderr" >&2 || true
done

# Each finding once (a header's is reported by every file that includes it).
findings=$work/findings
grep -E '^/.*:[0-9]+:[0-9]+: (warning|error): .* \[[a-z0-9.,-]+\]$' "$log" | sort -u >"$findings" || true
if [[ -s $findings ]]; then
  sed "s|^$root/||" "$findings"
  echo "[tidy] findings per check:"
  sed -E 's/.*\[([a-z0-9.,-]+)\]$/\1/' "$findings" | sort | uniq -c | sort -rn
  echo "[tidy] $(wc -l <"$findings") finding(s) in ${#files[@]} file(s)"
  exit 1
fi
if ((failed)); then
  echo "[tidy] clang-tidy failed (see above)" >&2
  exit 2
fi
echo "[tidy] no findings in ${#files[@]} file(s)"
