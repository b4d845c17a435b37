#!/usr/bin/env bash
# fuzz.sh: build the libFuzzer targets with clang (ASan + UBSan) and run each
# for a bounded time, printing how many inputs it tried and what it found.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
#
# Corpora persist in build/fuzz/corpus/<target>; a crash leaves its input in
# build/fuzz/artifacts/ and makes this script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bash scripts/setup.sh >/dev/null
cmake --preset fuzz >/dev/null
targets=(fuzz_cifar_reader fuzz_checkpoint_header)
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
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  mkdir -p "$corpus"
  echo "== $t for ${seconds}s"
  if ! ASAN_OPTIONS=detect_leaks=0 build/fuzz/fuzz/$t "$corpus" -max_total_time="$seconds" \
       -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 >build/fuzz/$t.log 2>&1; then
    status=1
    echo "$t FOUND A PROBLEM; see build/fuzz/$t.log and build/fuzz/artifacts/"
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY" build/fuzz/$t.log || true
  echo "corpus: $(ls "$corpus" | wc -l) inputs"
done
exit $status
