# interop.bash: helpers for the tests that use Python PyTorch as the client
# (sourced after common.bash).
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
EXPORT=$BIN/cifar-export
PREDICT=$BIN/cifar-predict
PY=${CIFAR_TORCH_PYTHON:-python3}
# ctest runs two tests at once on the 2-core CI machine, and a process on 2
# threads slows several-fold when the other test holds a core (the busy-machine
# figures in docs/benchmarks.md): these tests, C++ and Python alike, take one
# thread each unless told otherwise.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export PYTHONPATH="$SRC/scripts/python:$SRC/tests/cli/lib${PYTHONPATH:+:$PYTHONPATH}"

# need_python MODULE...: skip unless the Python has torch and these modules.
need_python() {
  local m
  for m in torch "$@"; do
    if ! "$PY" -c "import $m" 2>/dev/null; then
      echo "SKIPPED: $PY cannot import $m (run scripts/setup.sh, which installs it into the torch venv)"
      exit 77
    fi
  done
}
