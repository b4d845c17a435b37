#!/usr/bin/env bash
# `cmake --install` puts all four tools in a prefix, and each runs from there
# with a clean environment (no LD_LIBRARY_PATH, a bare PATH): the installed
# RUNPATH finds LibTorch, and nothing points back into the build tree; the
# configs are installed, and --config names the installed one.
source "$(dirname "$0")/lib/common.bash"

# The build tree is the first folder above the tool that holds CMakeCache.txt.
build=$(cd "$(dirname "$TRAIN")" && pwd)
while [[ ! -f $build/CMakeCache.txt ]]; do
  [[ $build == / ]] && fail "no CMakeCache.txt above $TRAIN: cannot tell its build tree"
  build=$(dirname "$build")
done
# The cmake that configured it (the one on the PATH may be a wrapper or another version).
cmake_bin=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt")
[[ -x $cmake_bin ]] || cmake_bin=cmake
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")

prefix=$WORK/prefix
"$cmake_bin" --install "$build" --prefix "$prefix" >install.log 2>&1 ||
  { tail -20 install.log >&2; fail "cmake --install $build --prefix $prefix failed"; }
pass "cmake --install $build --prefix \$TMP/prefix"

# tool -> an option its --help must list
declare -A help_option=([cifar-train]=--epochs [cifar-eval]=--checkpoint
                        [cifar-export]=--out [cifar-predict]=--top-k)
clean_env=(env -i PATH=/usr/bin:/bin HOME="$WORK" LANG=C.UTF-8)
for tool in cifar-train cifar-eval cifar-export cifar-predict; do
  exe=$prefix/bin/$tool
  [[ -x $exe ]] || fail "$tool was not installed (bin/ holds: $(ls "$prefix/bin" 2>/dev/null | xargs))"
  if command -v readelf >/dev/null; then
    runpath=$(readelf -d "$exe" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')
    [[ $runpath == *"$build"* ]] && fail "$tool's installed RUNPATH points into the build tree: $runpath"
  fi
  expect 0 "^$tool ${version//./\\.}" -- "${clean_env[@]}" "$exe" --version
  expect 0 "${help_option[$tool]}" -- "${clean_env[@]}" "$exe" --help
done

shared=$prefix/share/cifar-train/configs
[[ -f $shared/photos.toml && -f $shared/airbench94.toml ]] ||
  fail "the configs were not installed in share/cifar-train/configs (it holds: $(ls "$shared" 2>/dev/null | xargs))"
expect 2 "--config photos.toml: no such file: the tools' own photos.toml is $shared/photos.toml$" -- \
  "${clean_env[@]}" "$prefix/bin/cifar-train" --config photos.toml
pass "the configs are installed, and a missing --config names the installed one"

# The installed tool's hints name its installed configs (run from elsewhere);
# from the source tree, they read configs/...
write_folder pets cat,dog train,test 8
mkdir elsewhere
(cd elsewhere && "${clean_env[@]}" "$prefix/bin/cifar-train" --data ../pets --epochs 1 --device cpu \
  --run-dir run --checkpoint pets.pt >/dev/null 2>../hint.err) || { cat hint.err; fail "the installed cifar-train failed"; }
grep -qF -- "--config $shared/photos.toml (from scratch) or $shared/photos-pretrained.toml" hint.err ||
  { grep -F "no --config" hint.err; fail "the installed tool's photo hint does not name its configs"; }
(cd "$SRC" && "$TRAIN" --data "$WORK/pets" --epochs 1 --device cpu --run-dir "$WORK/run2" \
  --checkpoint "$WORK/pets2.pt" >/dev/null 2>"$WORK/hint2.err") || { cat hint2.err; fail "cifar-train from the source tree failed"; }
grep -qF -- "--config configs/photos.toml (from scratch) or configs/photos-pretrained.toml" hint2.err ||
  { grep -F "no --config" hint2.err; fail "from the source tree, the photo hint does not read configs/..."; }
pass "the photo hint names the installed configs, and configs/... in the source tree"
