# dist.bash: helpers for the distributed-engine tests (sourced after common.bash).
#
# ctest gives the dist_* scripts CIFAR_DIST_DRIVER (tests/dist_driver.cpp: one
# rank per process) and CIFAR_VENV_BIN (the torch venv's bin/, for torchrun).
# Every rank runs one intra-op thread on the loopback interface.
DRIVER=${CIFAR_DIST_DRIVER:-}
VENV_BIN=${CIFAR_VENV_BIN:-}
if [[ ! -x $DRIVER ]]; then
  echo "SKIPPED: CIFAR_DIST_DRIVER is not set to the built cifar_dist_driver (run through ctest)"
  exit 77
fi
export OMP_NUM_THREADS=1

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# rank R WORLD PORT ARGS...: runs one rank with plain environment variables.
rank() {
  local r=$1 world=$2 port=$3
  shift 3
  env -u LOCAL_RANK -u TORCHELASTIC_USE_AGENT_STORE WORLD_SIZE="$world" RANK="$r" \
    MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" "$DRIVER" "$@"
}

# two_ranks NAME ARGS...: both ranks of a 2-process run; each must exit 0;
# their output goes to NAME.0 and NAME.1.
two_ranks() {
  local name=$1 port
  shift
  port=$(free_port)
  rank 0 2 "$port" "$@" >"$name.0" 2>&1 &
  local p0=$!
  rank 1 2 "$port" "$@" >"$name.1" 2>&1
  local s1=$?
  wait "$p0"
  local s0=$?
  cat "$name.0" "$name.1"
  [[ $s0 -eq 0 && $s1 -eq 0 ]] || fail "$name: ranks exited $s0 and $s1"
}

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }
