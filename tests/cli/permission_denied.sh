#!/usr/bin/env bash
# A data file or folder this user may not read is reported as "permission
# denied" with its path, not as missing. The tests run as root, whom
# permission bits do not stop: the tools run here without the capabilities
# that let root ignore them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH).
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
