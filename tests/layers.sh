#!/usr/bin/env bash
# layers.sh: the include rule of src/cifar's layers, and their sizes.
#
# The folders are layers, bottom-up in the order below. A file may include
# headers of its own folder and of the folders before it, never after:
# a wrong-way include fails this test, naming the file, the line and both
# layers. A folder that is not in the list fails too (add it where it belongs).
# The tests keep the rule too: a file in tests/<layer>/ includes the library's
# headers ("cifar/<layer>/...") and the tests' own helpers ("<layer>/...") of
# its layer and below. Only app/ reads the environment (getenv).
#
#   bash tests/layers.sh SOURCE_DIR
set -euo pipefail
root=${1:?usage: layers.sh SOURCE_DIR}
src=$root/src/cifar
layers=(core formats platform data model dist optim io report infer config resolve train app)

rank_of() {
  local i
  for i in "${!layers[@]}"; do [[ ${layers[$i]} == "$1" ]] && { echo "$i"; return; }; done
  echo -1
}

bad=0
for dir in "$src"/*/; do
  layer=$(basename "$dir")
  own=$(rank_of "$layer")
  if ((own < 0)); then
    echo "src/cifar/$layer/ is not a known layer: add it to the list in tests/layers.sh"
    bad=1
    continue
  fi
  while IFS=: read -r file line target; do
    dep=$(rank_of "$target")
    if ((dep < 0 || dep > own)); then
      echo "${file#"$src"/}:$line: $layer/ includes $target/, a layer above it" \
           "(order: ${layers[*]})"
      bad=1
    fi
  done < <(grep -Hn -o '#include "cifar/[a-z_]*/' "$dir"* | sed 's@#include "cifar/@@; s@/$@@')
done

# tests/<layer>/: the same rule, for the library's headers and the tests' own.
for dir in "$root"/tests/*/; do
  layer=$(basename "$dir")
  own=$(rank_of "$layer")
  ((own < 0)) && continue  # cli/, cuda/: not a layer's tests
  while IFS=: read -r file line target; do
    dep=$(rank_of "$target")
    if ((dep > own)); then
      echo "${file#"$root"/}:$line: a test of $layer/ includes $target/, a layer above it" \
           "(move the test to tests/$target/, or include less)"
      bad=1
    fi
  done < <(grep -Hn -o '#include "\(cifar/\)\?[a-z_]*/' "$dir"* |
           sed 's@#include "\(cifar/\)\?@@; s@/$@@')
done

# Every read of the environment happens in the app layer (apps/ and app/).
while IFS= read -r hit; do
  echo "${hit#"$root"/}: reads the environment outside app/: let the app read it and pass it in"
  bad=1
done < <(grep -Hn 'getenv *(' "$src"/*/* | grep -v "^$src/app/" | grep -v ':[0-9]*: *//')

# No folder holds much more than a fifth of the library: at most 22% of its
# lines (a folder that grows past it is more than one layer: split it).
total=$(cat "$src"/*/* | wc -l)
for dir in "$src"/*/; do
  lines=$(cat "$dir"* | wc -l)
  if ((lines * 100 > total * 22)); then
    echo "src/cifar/$(basename "$dir")/ holds $lines of the library's $total lines" \
         "($((lines * 100 / total))%, more than 22%): split it into layers"
    bad=1
  fi
done
# One concept per file: none much over 300 lines.
for file in "$src"/*/*; do
  lines=$(wc -l <"$file")
  if ((lines > 320)); then
    echo "src/cifar/${file#"$src"/} has $lines lines (more than 320): split it by concept"
    bad=1
  fi
done
if ((bad)); then exit 1; fi
echo "include rule holds: ${layers[*]}; no folder over 22% of $total lines, no file over 320"
