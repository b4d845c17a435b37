#!/usr/bin/env bash
# fuzz.sh: build the libFuzzer targets with clang (ASan + UBSan) and run each
# for a bounded time, printing how many inputs it tried and what it found.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET [PARALLEL [TARGET...]]]
#
# Defaults: 60 seconds, 1 at a time, every target. PARALLEL targets run at
# once (each libFuzzer process uses one core); TARGETs (fuzz_config, ...)
# pick some.
#
# Corpora persist in build/fuzz/corpus/<target>; a crash leaves its input in
# build/fuzz/artifacts/ and makes this script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
parallel=${2:-1}
bash scripts/setup.sh >/dev/null
cmake --preset fuzz >/dev/null
targets=(fuzz_cifar_reader fuzz_checkpoint_header fuzz_safetensors_header fuzz_unpickle
         fuzz_config)
(($# > 2)) && targets=("${@:3}")
cmake --build --preset fuzz --target "${targets[@]}"
mkdir -p build/fuzz/artifacts
status=0
# A seed for the header fuzzer: a complete, valid header with an empty payload.
mkdir -p build/fuzz/corpus/fuzz_checkpoint_header
python3 - build/fuzz/corpus/fuzz_checkpoint_header/seed-valid-header <<'PY'
import json, struct, sys
header = json.dumps({
    "model": {"name": "net", "stem": "cifar", "num_classes": 10}, "epoch": 1,
    "step_in_epoch": 0, "global_step": 10, "test_accuracy": 0.5, "best_accuracy": 0.5,
    "normalization": {"mean": [0.5, 0.5, 0.5], "std": [0.25, 0.25, 0.25]},
    "class_names": [f"c{i}" for i in range(10)], "config": "epochs = 1\n",
    "libtorch_version": "2.11.0", "payload_bytes": 0}).encode()
# Version 1 (no checksum); the target also seals each input as version 2.
open(sys.argv[1], "wb").write(b"CIFARTRN" + struct.pack("<II", 1, len(header)) + header)
PY
# Seeds for the weights parsers: a small valid safetensors file and a pickle
# of a state dict as torch.save writes it (when the torch venv is there).
mkdir -p build/fuzz/corpus/fuzz_safetensors_header build/fuzz/corpus/fuzz_unpickle
python3 - build/fuzz/corpus/fuzz_safetensors_header/seed-valid <<'PY'
import json, struct, sys
header = json.dumps({"__metadata__": {"model": "net"},
                     "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                     "b": {"dtype": "I64", "shape": [], "data_offsets": [8, 16]}}).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(header)) + header + bytes(16))
PY
torch_python="${XDG_CACHE_HOME:-$HOME/.cache}/cifar-train/torch-2.11.0/bin/python"
if [[ -x $torch_python ]]; then
  "$torch_python" - build/fuzz/corpus/fuzz_unpickle/seed-state-dict <<'PY' || true
import io, sys, zipfile, torch
buf = io.BytesIO()
torch.save(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2)).state_dict(), buf)
z = zipfile.ZipFile(buf)
open(sys.argv[1], "wb").write(z.read([n for n in z.namelist() if n.endswith("data.pkl")][0]))
PY
fi
# Seeds for the unpickler's limits (issue 22): lists and tuples nested 2,000
# and 4,000 deep (freeing 200,000 recursed until SIGSEGV; these stay under
# libFuzzer's default -max_len of 4096), a storage of 2^28 floats, a tensor of
# stride 0 over one float seen as 2^28 of them.
python3 - build/fuzz/corpus/fuzz_unpickle <<'PY'
import struct, sys
def s(x): return b"X" + struct.pack("<I", len(x)) + x.encode()
def i32(v): return b"J" + struct.pack("<i", v)
def tensor(numel, size, stride):
    ref = b"(" + s("storage") + b"ctorch\nFloatStorage\n" + s("0") + s("cpu") + i32(numel) + b"tQ"
    return (b"ctorch._utils\n_rebuild_tensor_v2\n(" + ref + i32(0) + i32(size) + b"\x85" +
            i32(stride) + b"\x85tR")
seeds = {
    "seed-deep-lists": b"]" * 2000 + b"a" * 1999,
    "seed-deep-tuples": b"N" + b"\x85" * 4000,
    "seed-inflating-storage": b"}(" + s("w") + tensor(1 << 28, 1 << 28, 1) + b"u",
    "seed-stride-0": b"}(" + s("w") + tensor(1, 1 << 28, 0) + b"u",
}
for name, body in seeds.items():
    open(f"{sys.argv[1]}/{name}", "wb").write(b"\x80\x02" + body + b".")
PY
# Seeds for the settings reader: each ready-made config, then after a NUL
# the command line's numbers as issue 30 found them misread (leading zeros,
# a signed seed, hexadecimal).
mkdir -p build/fuzz/corpus/fuzz_config
i=0
for f in configs/*.toml; do
  for args in $'--epochs\n010' $'--seed\n -1' $'--train-limit\n0x100' $'--lr\n1e-2\n--threads\n2'; do
    { cat "$f"; printf '\0%s' "$args"; } >build/fuzz/corpus/fuzz_config/seed-$((i++))
  done
done
fuzz_one() {  # target: runs it, then prints its figures (a crash: non-zero)
  local t=$1 corpus=build/fuzz/corpus/$1 found=0
  mkdir -p "$corpus"
  ASAN_OPTIONS=detect_leaks=0 build/fuzz/fuzz/$t "$corpus" -max_total_time="$seconds" \
    -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 >build/fuzz/$t.log 2>&1 || found=1
  {
    echo "== $t for ${seconds}s"
    [[ $found -eq 0 ]] || echo "$t FOUND A PROBLEM; see build/fuzz/$t.log and build/fuzz/artifacts/"
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY" build/fuzz/$t.log || true
    echo "corpus: $(ls "$corpus" | wc -l) inputs"
  } >build/fuzz/$t.summary
  return $found
}
for t in "${targets[@]}"; do
  while (( $(jobs -rp | wc -l) >= parallel )); do wait -n || status=1; done
  fuzz_one "$t" &
done
while (( $(jobs -rp | wc -l) > 0 )); do wait -n || status=1; done
for t in "${targets[@]}"; do cat "build/fuzz/$t.summary"; done
exit $status
