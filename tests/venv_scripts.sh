#!/usr/bin/env bash
# venv_scripts.sh BIN: every script in the torch venv's bin/ starts with an
# interpreter that exists, and torchrun runs (torchrun --help).
set -uo pipefail
bin=$1
if [[ ! -x "$bin/python" ]]; then
  echo "SKIPPED: no venv at ${bin%/bin} (LibTorch came from elsewhere; scripts/setup.sh makes one)"
  exit 77
fi
bad=0
for f in "$bin"/*; do
  [[ -f $f && ! -L $f ]] || continue
  IFS= read -r first <"$f" || continue
  [[ $first == '#!'* ]] || continue
  interpreter=${first#\#!}
  interpreter=${interpreter%% *}
  if [[ ! -x $interpreter ]]; then
    echo "FAIL: $f starts with '$first', which does not exist (run scripts/setup.sh to repair)" >&2
    bad=1
  fi
done
out=$("$bin/torchrun" --help 2>&1) || { echo "$out" | tail -5 >&2; echo "FAIL: $bin/torchrun --help failed" >&2; exit 1; }
grep -q -- "--nproc-per-node" <<<"$out" || { echo "FAIL: torchrun --help printed no --nproc-per-node" >&2; exit 1; }
((bad)) && exit 1
echo "ok: every script in $bin has its interpreter; torchrun --help runs"
