#!/usr/bin/env bash
# dist_settings.sh: processes started together compare, before any training
# collective, the settings that shape the run and a CRC-32C of their data;
# any difference stops every rank (exit 2) with one message naming it and
# both values, and no run folder is made. Once, different --lr trained two
# models and exited 0; different --train-limit aborted a rank in
# std::terminate (gloo::EnforceNotMet). Options that are each process's own
# (--data's path, --threads, --log-interval) may differ. A collective whose
# sizes differ (a bug; the driver's "mismatch") ends with one error line and
# exit 1, never "terminate called".
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/dist.bash"
make_fake_data data
common=(--data data --device cpu --threads 1 --model net --batch-size 32 --epochs 1
        --train-limit 512 --eval-batch-size 500 -q)

no_crash() {
  if grep -Eq 'Exception raised from|frame #[0-9]|terminate called|Aborted|Segmentation' "$1"; then
    cat "$1" >&2
    fail "$1: a raw C++ error or crash"
  fi
}

# pair NAME "RANK0 ARGS" "RANK1 ARGS": two cifar-train ranks; sets s0, s1.
pair() {
  local name=$1 port
  port=$(free_port)
  # shellcheck disable=SC2086
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 \
    MASTER_PORT="$port" timeout 120 "$TRAIN" "${common[@]}" --run-dir "$name" $2 >"$name.0" 2>&1 &
  local p0=$!
  # shellcheck disable=SC2086
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 \
    MASTER_PORT="$port" timeout 120 "$TRAIN" "${common[@]}" --run-dir "$name" $3 >"$name.1" 2>&1
  s1=$?
  wait $p0
  s0=$?
}

# refused NAME PATTERN: both ranks exit 2 naming the difference; no run folder.
refused() {
  local name=$1 pattern=$2 r
  for r in 0 1; do
    no_crash "$name.$r"
    grep -Eq -- "$pattern" "$name.$r" || { cat "$name.$r"; fail "rank $r's output does not match /$pattern/"; }
  done
  [[ $s0 -eq 2 && $s1 -eq 2 ]] || { cat "$name".*; fail "$name: ranks exited $s0 and $s1, expected 2 and 2"; }
  [[ ! -e $name ]] || fail "$name: a refused run made its run folder"
  pass "$name: both ranks exit 2: $(grep -Eo -- "$pattern" "$name.0")"
}

pair lr "--lr 0.001 --checkpoint lr.pt" "--lr 0.2 --checkpoint lr.pt"
refused lr "error: the 2 processes were not started alike: rank 1's --lr is 0.2, rank 0's is 0.001\."
for r in 0 1; do  # torchrun interleaves the processes' lines: each names its rank
  grep -q "] rank $r error: the 2 processes" "lr.$r" || { cat "lr.$r"; fail "rank $r's error line does not name its rank"; }
done
pass "each process's error line names its rank"

# Rank 0 writes the run folder, and refuses one holding another run's
# results: every rank stops alike, with its message, before reading the data.
mkdir -p taken && echo "epoch" >taken/metrics.csv
pair taken "--checkpoint taken.pt" "--checkpoint taken.pt"
for r in 0 1; do
  no_crash "taken.$r"
  grep -q "already holds another run's results (metrics.csv)" "taken.$r" ||
    { cat "taken.$r"; fail "rank $r does not name the run folder's results"; }
done
[[ $s0 -eq 2 && $s1 -eq 2 ]] || { cat taken.*; fail "taken: ranks exited $s0 and $s1, expected 2 and 2"; }
pass "a run folder holding another run's results: both ranks exit 2 with rank 0's refusal"

pair limit "--train-limit 512 --checkpoint limit.pt" "--train-limit 1024 --checkpoint limit.pt"
refused limit "rank 1's --train-limit is 1024, rank 0's is 512; rank 1's training data is 1024 images, CRC-32C [0-9a-f]{8} of the images, [0-9a-f]{8} of the labels, rank 0's is 512 images"

# One test label changed in rank 1's copy of the data.
mkdir -p other && cp -L data/* other/
python3 - other/test_batch.bin <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(5 * 3073)
    label = f.read(1)[0]
    f.seek(5 * 3073)
    f.write(bytes([(label + 1) % 10]))
PY
pair labels "--checkpoint labels.pt" "--data other --checkpoint labels.pt"
refused labels "rank 1's test data is 10000 images, CRC-32C ([0-9a-f]{8}) of the images, [0-9a-f]{8} of the labels, rank 0's is 10000 images, CRC-32C [0-9a-f]{8} of the images, [0-9a-f]{8} of the labels"
grep -q "rank 1's training data" labels.0 && fail "only the test data differs, the message names the training data"

# The same data at another path, other --threads and --log-interval: trains.
mkdir -p copy && cp -L data/* copy/
pair same "--checkpoint same.pt --log-interval 5" "--data copy --threads 2 --checkpoint same.pt"
[[ $s0 -eq 0 && $s1 -eq 0 ]] || { cat same.*; fail "ranks with only their own options different exited $s0 and $s1"; }
[[ -f same/metrics.csv ]] || fail "the agreeing run wrote no metrics.csv"
pass "a copy of the data at another path, --threads and --log-interval may differ between ranks"

# A collective mismatch that reaches the transport: one line, exit 1, no abort.
port=$(free_port)
rank 0 2 "$port" mismatch --dist-timeout 20 >mismatch.0 2>&1 &
p0=$!
rank 1 2 "$port" mismatch --dist-timeout 20 >mismatch.1 2>&1
m1=$?
wait $p0
m0=$?
cat mismatch.0 mismatch.1
no_crash mismatch.0
no_crash mismatch.1
[[ $m0 -eq 1 && $m1 -eq 1 ]] || fail "a collective mismatch: ranks exited $m0 and $m1, expected 1 and 1"
grep -hq "distributed transport failed on one of its own threads (.*Received data size doesn't match.*): the processes' exchanges did not match" mismatch.0 mismatch.1 ||
  fail "no rank says the exchanges did not match"
pass "a collective mismatch ends both ranks with exit 1 and one line"
