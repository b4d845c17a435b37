#!/usr/bin/env bash
# gpu_kit.sh (ctest gpu_kit.complete): CI's quick proof that the GPU check kit
# is complete. It makes a kit, without data, from the binaries just built
# (scripts/gpu/prepare.sh --no-build --no-data) in a temporary folder; prepare.sh
# ends with scripts/gpu/kit_complete.sh, which fails unless every binary is
# there and CUDA-enabled, every library it needs resolves, in a clean
# environment, from the kit, the torch wheel or glibc, and each one starts.
# Then check.sh --cpu from that kit without data: its report lists every
# step, and a check stopped by a signal leaves the report of the steps it ran.
#
#   tests/gpu_kit.sh SOURCE_DIR BUILD_DIR     (exit 77: no Python with torch here)
set -uo pipefail
source_dir="$1" build_dir="$2"
source "$source_dir/scripts/gpu/kit_lib.bash"
kit_python >/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$source_dir/scripts/gpu/prepare.sh" --no-build --no-data --build-dir "$build_dir" \
  --kit "$tmp/kit" || exit 1

# check.sh with that kit and no data (a copy of scripts/gpu/ outside the
# repository, so no .gpu-data/ is found), the CPU standing in: the data step
# fails, every step that needs the data is reported as not run, the others
# run, and the report lists them all.
mkdir -p "$tmp/repo/scripts"
cp -r "$source_dir/scripts/gpu" "$tmp/repo/scripts/gpu"
fail() { echo "FAIL: $*"; tail -n 40 "$tmp/check.out"; exit 1; }
# env execs bash, so $! below is check.sh's own process.
check=(env -u CIFAR10_DIR OUT="$tmp/out" bash "$tmp/repo/scripts/gpu/check.sh" --cpu --kit "$tmp/kit")
"${check[@]}" >"$tmp/check.out" 2>&1
rc=$?
((rc == 1)) || fail "check.sh without data exited $rc, not 1"
report="$tmp/out/report.md"
grep -q '^| environment | passed |' "$report" || fail "no passed environment step in the report"
grep -q '^| data | FAILED' "$report" || fail "the data step did not fail without data"
(($(grep -c '| not run: no data (see the data step) |' "$report") == 10)) ||
  fail "not the 10 steps that need the data reported as not run"
grep -q '^| nccl | passed |' "$report" || fail "the gloo group did not run without data"

# Stopped during a step (the device call's own limit, Ctrl-C), check.sh
# still leaves the report of the steps so far, the stopped step named.
# The first run's check.out goes first: grepping it before the background
# job truncates it would stop the check before it wrote anything.
rm -rf "$tmp/out" "$tmp/check.out"
"${check[@]}" >"$tmp/check.out" 2>&1 &
pid=$!
until grep -qs '\] kit (limit' "$tmp/check.out"; do
  kill -0 "$pid" 2>/dev/null || fail "check.sh ended before its kit step"
  sleep 0.1
done
kill -TERM "$pid"
wait "$pid"
rc=$?
((rc == 143)) || fail "check.sh stopped by SIGTERM exited $rc, not 143"
grep -q '^| environment | passed |' "$report" || fail "the stopped check's report lacks the steps it ran"
grep -q 'stopped by a signal during kit' "$report" || fail "the report does not name the stopped step"
grep -q '^| kit | FAILED: stopped with the check |' "$report" || fail "the stopped step is not in the table"
echo "check.sh without data: the report lists every step; stopped, it keeps the steps so far"
