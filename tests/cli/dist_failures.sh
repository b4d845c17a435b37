#!/usr/bin/env bash
# dist_failures.sh: a rank killed with SIGKILL (rank 1, then rank 0 which
# serves the store) makes the other exit non-zero within 10 s naming it; a
# rank's own error reaches the other with its cause; a peer that never
# arrives gives one clear line within the timeout, never a hang or an abort;
# a MASTER_ADDR that resolves to nothing is named as such.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/dist.bash"

no_crash() {
  if grep -Eq 'Exception raised from|frame #[0-9]|terminate called|Aborted|Segmentation' "$1"; then
    cat "$1" >&2
    fail "$1: a raw C++ error or crash"
  fi
}

# kill_one VICTIM: starts two ranks stepping forever, SIGKILLs VICTIM once
# both are stepping, and checks what the survivor says and how soon.
kill_one() {
  local victim=$1 survivor=$((1 - $1)) port pids=() start i
  port=$(free_port)
  for r in 0 1; do  # the driver itself (not a shell function) is the process killed
    env WORLD_SIZE=2 RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
      "$DRIVER" steps --steps 1000000 --sleep 0.02 >"kill$victim.$r" 2>&1 &
    pids[r]=$!
  done
  for i in $(seq 300); do  # up to 30 s for both to be stepping
    grep -q "step 5$" "kill$victim.0" 2>/dev/null && grep -q "step 5$" "kill$victim.1" 2>/dev/null && break
    sleep 0.1
  done
  grep -q "step 5$" "kill$victim.$survivor" || { cat kill$victim.*; fail "the ranks never got stepping"; }
  kill -KILL "${pids[victim]}"
  start=$(now)
  for i in $(seq 300); do  # a watchdog: the survivor must not outlive 30 s
    kill -0 "${pids[survivor]}" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "${pids[survivor]}" 2>/dev/null; then
    kill -KILL "${pids[survivor]}"
    fail "rank $survivor still runs 30 s after rank $victim was killed"
  fi
  wait "${pids[survivor]}"
  local status=$? took
  took=$(elapsed "$start" "$(now)")
  wait "${pids[victim]}" 2>/dev/null
  tail -2 "kill$victim.$survivor"
  [[ $status -ne 0 ]] || fail "rank $survivor exited 0 after rank $victim was killed"
  python3 -c "import sys; sys.exit(float(sys.argv[1]) > 10)" "$took" ||
    fail "rank $survivor took ${took} s to notice (more than 10 s)"
  grep -q "error: distributed .* failed on rank $survivor of 2: rank $victim stopped answering" \
    "kill$victim.$survivor" || fail "rank $survivor's message does not name rank $victim"
  [[ $(grep -c "^error:" "kill$victim.$survivor") -eq 1 ]] || fail "more than one error line"
  no_crash "kill$victim.$survivor"
  pass "SIGKILL rank $victim: rank $survivor exited $status after ${took} s naming rank $victim"
}
kill_one 1
kill_one 0

# A rank's own error (bad data on one node): the other names it and its cause.
port=$(free_port)
rank 0 2 "$port" steps --steps 50 --fail-rank 1 --fail-step 3 >own.0 2>&1 &
p0=$!
rank 1 2 "$port" steps --steps 50 --fail-rank 1 --fail-step 3 >own.1 2>&1
s1=$?
wait $p0
s0=$?
tail -1 own.0
[[ $s0 -ne 0 && $s1 -ne 0 ]] || fail "both ranks must fail (exited $s0, $s1)"
grep -q "rank 1 failed: bad data at step 3" own.0 || fail "rank 0 does not give rank 1's cause"
no_crash own.0
pass "rank 1's own error reaches rank 0 with its cause"

# A peer that never arrives: rank 0 alone (it serves the store), then rank 1
# alone (no store to reach); a 3 s timeout.
for r in 0 1; do
  port=$(free_port)
  start=$(now)
  expect 1 "distributed set-up failed on rank $r of 2 .* timeout 3 s" -- \
    rank $r 2 "$port" setup --dist-timeout 3
  took=$(elapsed "$start" "$(now)")
  python3 -c "import sys; sys.exit(float(sys.argv[1]) > 15)" "$took" ||
    fail "rank $r alone took ${took} s to give up with a 3 s timeout"
  pass "rank $r alone gave up after ${took} s"
done

# A MASTER_ADDR:MASTER_PORT that accepts connections and never answers (not
# a c10d store): the store's handshake waited on it forever (still waiting
# after 300 s with --dist-timeout 5); now one line within the timeout and 5 s.
port=$(free_port)
python3 - "$port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
held = []
while True:
    held.append(s.accept()[0])  # accepted, never answered
PY
silent=$!
sleep 0.5
start=$(now)
expect 1 "distributed set-up failed on rank 1 of 2 .*no answer from the store at 127.0.0.1:$port within 8 s" -- \
  timeout 60 env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=1 \
  MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" "$DRIVER" setup --dist-timeout 3
took=$(elapsed "$start" "$(now)")
kill "$silent"
wait "$silent" 2>/dev/null
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 15)" "$took" ||
  fail "a silent store held rank 1 for ${took} s with a 3 s timeout"
pass "a port that never answers: rank 1 gave up after ${took} s"

# A MASTER_ADDR that names no host (.invalid never resolves, RFC 2606):
# named at the timeout; it was reported as a store that never answered.
expect 1 "distributed set-up failed on rank 1 of 2: MASTER_ADDR no-such-host.invalid names no host this machine could find within --dist-timeout 3 s" -- \
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE=2 RANK=1 \
  MASTER_ADDR=no-such-host.invalid MASTER_PORT=29999 "$DRIVER" setup --dist-timeout 3
pass "a MASTER_ADDR that resolves to nothing is named"
