#!/usr/bin/env bash
# A data file or folder this user may not read is reported as "permission
# denied" with its path, not as missing. The tests run as root, whom
# permission bits do not stop: the tools run here without the capabilities
# that let root ignore them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). A read-only
# image folder keeps its decode cache in the user's cache folder.
source "$(dirname "$0")/lib/common.bash"
unprivileged=()
if [[ $(id -u) -eq 0 ]]; then
  if ! setpriv --bounding-set=-dac_override,-dac_read_search true 2>/dev/null; then
    echo "SKIPPED: running as root and setpriv cannot drop CAP_DAC_OVERRIDE here"
    exit 77
  fi
  unprivileged=(setpriv --bounding-set=-dac_override,-dac_read_search)
fi
make_fake_data data
mkdir locked && cp -L data/* locked/ && chmod 000 locked
mkdir files && cp -L data/* files/ && chmod 000 files/data_batch_3.bin
expect 1 "data folder locked: permission denied" -- "${unprivileged[@]}" "$TRAIN" --data locked --device cpu
expect 1 "files/data_batch_3.bin: permission denied" -- "${unprivileged[@]}" "$TRAIN" --data files --device cpu
expect 1 "locked/data_batch_1.bin: permission denied \\(folder 'locked'" -- \
  "${unprivileged[@]}" "$EVAL" --checkpoint locked/data_batch_1.bin --data data --device cpu
chmod 755 locked

# An image folder this user may not write (a shared, read-only data set) has
# its decode cache in ${XDG_CACHE_HOME:-~/.cache}/cifar-train instead: the
# first read decodes into it, the next reads (cifar-train, cifar-eval) take
# it from there; the folder gets nothing. Without a cache home, each read
# decodes again, with a warning.
write_folder photos cat,dog train,test 6
chmod -R a-w photos
cache=$WORK/home-cache
run=(--data photos --device cpu --epochs 1 --batch-size 4)
expect 0 "take them from $cache/cifar-train/image-folders/[0-9a-f]{16}-train.bin" -- \
  env XDG_CACHE_HOME="$cache" "${unprivileged[@]}" "$TRAIN" "${run[@]}" --run-dir r1 --checkpoint r1.pt
[[ ! -e photos/.cifar-cache ]] || fail "a cache was written into the read-only folder"
expect 0 "images read from the cache $cache/cifar-train/image-folders/[0-9a-f]{16}-train.bin" -- \
  env XDG_CACHE_HOME="$cache" "${unprivileged[@]}" "$TRAIN" "${run[@]}" --run-dir r2 --checkpoint r2.pt
expect 0 "images read from the cache $cache/cifar-train/image-folders/[0-9a-f]{16}-test.bin" -- \
  env XDG_CACHE_HOME="$cache" "${unprivileged[@]}" "$EVAL" --checkpoint r1.pt --data photos --device cpu
expect 0 "could not write the image cache" -- \
  env -u XDG_CACHE_HOME -u HOME "${unprivileged[@]}" "$TRAIN" "${run[@]}" --run-dir r3 --checkpoint r3.pt
chmod -R u+w photos
