#!/usr/bin/env bash
# layers.sh: the include rule of src/cifar's layers, and their sizes.
#
# The folders are layers, bottom-up in the order below. A file may include
# headers of its own folder and of the folders before it, never after:
# a wrong-way include fails this test, naming the file, the line and both
# layers. A folder that is not in the list fails too (add it where it belongs).
#
#   bash tests/layers.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: layers.sh SOURCE_DIR}/src/cifar
layers=(core formats platform data model dist optim io report infer config train app)

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
