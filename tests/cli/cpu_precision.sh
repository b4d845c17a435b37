#!/usr/bin/env bash
# --amp auto follows what the CPU runs natively (issue 45): the run log names
# ATen's CPU capability and whether bf16 is native, as Python PyTorch answers
# for the same process environment (torch.backends.cpu.get_cpu_capability(),
# cpuinfo's avx512_bf16/amx_bf16, oneDNN's bf16 check), and the precision
# chosen and why; config.toml and the checkpoint record what ran. Under
# ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 (a fast CPU acting as an
# AVX2 one) auto runs float32; an explicit --amp bf16 still runs, with one
# warning that names the device and the fix. A value ATen does not take is
# said on the capability line.
source "$(dirname "$0")/lib/common.bash"
PY=${CIFAR_TORCH_PYTHON:-python3}
"$PY" -c 'import torch' 2>/dev/null || { echo "SKIPPED: no Python PyTorch ($PY)"; exit 77; }
write_folder small cat,dog train,val 20
run() {  # run NAME [ENV=VALUE...] -- cifar-train options...
  local name=$1; shift
  local vars=()
  while [[ $1 != -- ]]; do vars+=("$1"); shift; done
  shift
  env "${vars[@]}" "$TRAIN" --config "$SRC/configs/airbench94.toml" --data small --device cpu \
    --epochs 1 --tta 0 --no-tensorboard --run-dir "run-$name" --checkpoint "$name.pt" "$@" \
    >"$name.out" 2>"$name.err" || { tail -20 "$name.err"; fail "$name: cifar-train failed"; }
}
# What Python PyTorch says of this CPU, under the same environment.
python_says() {
  env "$@" "$PY" -c '
import torch
cap = torch.backends.cpu.get_cpu_capability()
flags = torch.cpu.get_capabilities()
native = (cap == "AVX512" and (flags.get("avx512_bf16", False) or flags.get("amx_bf16", False))
          and torch.ops.mkldnn._is_mkldnn_bf16_supported())
print(cap, "native" if native else "no-native")'
}

# 1. This CPU as it is.
read -r cap native <<<"$(python_says)"
run plain -- 
grep -q "cpu capability: $cap, ${native/-/ } bf16" plain.err ||
  { grep -i capab plain.err; fail "the log does not say Python's '$cap, $native bf16'"; }
if [[ $native == native ]]; then want=bf16; why="bf16 autocast (--amp auto"; else want=off; why="float32 (--amp auto"; fi
grep -qF "precision: $why" plain.err || { grep precision plain.err; fail "precision: expected '$why'"; }
grep -qx "amp = \"$want\"" run-plain/config.toml || { grep amp run-plain/config.toml; fail "config.toml does not record amp = $want"; }
pass "this CPU: $cap, $native bf16 -> --amp auto runs $want"

# 2. The same CPU restricted to AVX2, as most users' CPUs are.
avx2=(ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2)
read -r cap native <<<"$(python_says "${avx2[@]}")"
[[ $cap == AVX2 && $native == no-native ]] || fail "Python under ${avx2[*]} says $cap $native"
run avx2 "${avx2[@]}" --
grep -q "cpu capability: AVX2, no native bf16" avx2.err || { grep -i capab avx2.err; fail "AVX2: capability not named"; }
grep -qF "precision: float32 (--amp auto: " avx2.err || { grep precision avx2.err; fail "AVX2: auto did not choose float32"; }
grep -qx 'amp = "off"' run-avx2/config.toml || fail "AVX2: config.toml does not record amp = off"
! grep -q "warning.*\(amp\|bf16\|precision\)" avx2.err || { grep warning avx2.err; fail "AVX2 with --amp auto warned about the precision"; }
"$EVAL" --checkpoint avx2.pt --data small --split val --device cpu --json -q >avx2.json ||
  fail "cifar-eval of the AVX2 run failed"
pass "AVX2: --amp auto runs float32, recorded in config.toml, said once"

# Either restriction alone is enough: ATen's kernels at AVX2, or oneDNN at AVX2.
for restriction in ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2; do
  read -r cap native <<<"$(python_says "$restriction")"
  [[ $native == no-native ]] || fail "Python under $restriction says $cap $native"
  run "only-${restriction%%=*}" "$restriction" -- --train-limit 8
  grep -q "cpu capability: $cap, no native bf16" "only-${restriction%%=*}.err" ||
    { grep -i capab "only-${restriction%%=*}.err"; fail "$restriction: not '$cap, no native bf16'"; }
  grep -qF "precision: float32 (--amp auto: " "only-${restriction%%=*}.err" || fail "$restriction: auto did not choose float32"
done
pass "ATEN_CPU_CAPABILITY=avx2 alone and ONEDNN_MAX_CPU_ISA=AVX2 alone each make auto run float32"

# 3. An explicit --amp bf16 there runs, warning once with the device and the fix.
run forced "${avx2[@]}" -- --amp bf16
[[ $(grep -c "warning.*--amp bf16 on cpu (AVX2)" forced.err) == 1 ]] ||
  { cat forced.err; fail "--amp bf16 on AVX2: not warned exactly once"; }
grep -q -- "use --amp auto or --amp off" forced.err || fail "--amp bf16 on AVX2: no fix named"
grep -qx 'amp = "bf16"' run-forced/config.toml || fail "--amp bf16: config.toml does not record bf16"
pass "AVX2: --amp bf16 runs as asked, with one warning naming the fix"

# 4. --amp off is float32 wherever it runs.
run off -- --amp off
grep -qF "precision: float32 (--amp off)" off.err || fail "--amp off: precision line missing"
pass "--amp off: float32"

# 5. A value ATen does not take is said on the capability line, by every
# tool (issue 54: LibTorch's own warning was all); a value it takes is not.
run odd ATEN_CPU_CAPABILITY=avx3 -- --train-limit 8
grep -q "cpu capability: .*; ATEN_CPU_CAPABILITY=avx3 was not taken (ATen runs its [A-Z0-9]* kernels" odd.err ||
  { grep -i capab odd.err; fail "ATEN_CPU_CAPABILITY=avx3: the capability line does not say it was not taken"; }
ATEN_CPU_CAPABILITY=avx3 "$EVAL" --checkpoint odd.pt --data small --split val --device cpu >/dev/null 2>odd_eval.err ||
  fail "cifar-eval under ATEN_CPU_CAPABILITY=avx3 failed"
grep -q "ATEN_CPU_CAPABILITY=avx3 was not taken" odd_eval.err || { cat odd_eval.err; fail "cifar-eval does not say avx3 was not taken"; }
! grep -q "was not taken" avx2.err only-ATEN_CPU_CAPABILITY.err || fail "ATEN_CPU_CAPABILITY=avx2, taken, was said not taken"
pass "ATEN_CPU_CAPABILITY=avx3: 'not taken' on the capability line of cifar-train and cifar-eval"
