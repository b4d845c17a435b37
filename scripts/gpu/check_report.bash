# check_report.bash: check.sh's report, sourced by it. write_report writes
# report.md (the steps so far, their figures, and the last lines of each step
# that did not pass) and logs.txt (every step's output) into $report_dir, and
# sets `failed`. check.sh calls it before every step (naming it: a check
# killed outright, SIGKILL, says where it stopped), when it is stopped by a
# signal, and at the end, so a check cut short still leaves a report of the
# steps it ran.
#
#   write_report [STATUS]   STATUS: where the check stopped (default: it ended)
#
# It reads check.sh's globals: names, results, seconds (one entry per step),
# MODE, DEVICE, KIT, REPO, WORK, start, budget, report_dir.

# A step's figures (its Markdown piece), else the text given.
figures() { [[ -s "$WORK/figures-$1.md" ]] && cat "$WORK/figures-$1.md" || echo "$2"; }
# The environment step's line that starts with $1, less that word.
env_line() { grep -m1 "^$1" "$WORK/log-environment.txt" 2>/dev/null | cut -d' ' -f2-; }

write_report() {
  local ended="${1:-}" total=$(($(date +%s) - start)) i name
  failed=0
  {
    echo "# GPU check report"
    echo
    if [[ "$MODE" == gpu ]]; then
      echo "- Mode: GPU ($DEVICE)"
    else
      echo "- Mode: --cpu (the CPU stands in for the GPU: short runs, CPU figures)"
    fi
    echo "- GPU: $(env_line gpu: || echo none)"
    echo "- nvidia-smi: $(env_line nvidia-smi: || echo none)"
    echo "- CPU: $(env_line cpu:)"
    echo "- Python: $(env_line python:); torch: $(env_line torch:)"
    echo "- glibc: $(env_line glibc:)"
    echo "- Kit: $KIT ($(du -sh "$KIT" 2>/dev/null | cut -f1)): $(tr '\n' ' ' <"$KIT/kit.env" 2>/dev/null)"
    echo "- Repository: $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no git')"
    echo "- Data: $(grep -h '^data:\|^refused:\|^error:\|^no data:' "$WORK/log-data.txt" 2>/dev/null | head -1 | sed 's/^data: //')"
    echo "- Date: $(date -u +%Y-%m-%dT%H:%MZ); the steps took $total s (limit $budget s)${ended:+; $ended}"
    echo
    echo "## Steps"
    echo
    echo "| step | result | seconds |"
    echo "|---|---|---:|"
    for i in "${!names[@]}"; do
      echo "| ${names[$i]} | ${results[$i]} | ${seconds[$i]} |"
      # Without a GPU, skipped [cuda] tests are the expected outcome; a step
      # this machine cannot run (its reason given) is unverified, not failed.
      [[ "${results[$i]}" == passed || "${results[$i]}" == *"(unverified)" ||
        ("$MODE" == cpu && "${results[$i]}" == skipped*) ]] || failed=1
    done
    echo
    echo "## [cuda] tests and the process group"
    echo
    echo "| test | result | seconds |"
    echo "|---|---|---:|"
    figures cuda-tests "| (no result) | | |"
    figures nccl "| (no result) | | |"
    figures nccl-two-ranks "| two ranks on NCCL | not run | |"
    echo
    echo "## airbench94 and speedrun (configs/airbench94.toml, configs/speedrun.toml, seed 0) and the CUDA graph (configs/resnet18.toml)"
    echo
    echo "| flags | epochs | wall s (whole process) | training s (capture excluded) | img/s (last epoch) | test acc | peak GPU memory |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    figures airbench94 "| airbench94 (eager) failed | | | | | | |"
    figures speedrun "| speedrun (eager) failed | | | | | | |"
    figures graph "| resnet18.toml eager / --cuda-graph failed | | | | | | |"
    echo
    echo "## The reference beside it: airbench94 as PyPI publishes it, and configs/airbench94.toml and configs/speedrun.toml with --cuda-graph, seeds 0-2 alternating"
    echo
    figures reference "(no result: see the reference step)"
    echo
    echo "## --amp fp16 (loss scaling on $DEVICE, 1 epoch + --resume) and --deterministic"
    echo
    echo "| check | result |"
    echo "|---|---|"
    figures amp-fp16 "| --amp fp16 | no result |"
    figures deterministic "| --deterministic twice | no result |"
    echo
    echo "## cifar-eval on the CPU of a checkpoint trained on $DEVICE"
    echo
    echo "| checkpoint | test acc at training's end | cifar-eval --device cpu | difference (points) |"
    echo "|---|---:|---:|---:|"
    figures eval-cpu "| (no result) | | | |"
    echo
    echo "## Benchmarks (scripts/bench/run_bench.py, one round each)"
    echo
    figures bench-resnet18 "resnet18-b512-bf16-gpu: no result"
    echo
    figures bench-tutorial "net-b4-gpu: no result"
    echo
    if grep -q '^data: the subset' "$WORK/log-data.txt" 2>/dev/null; then
      echo "Data: the kit's real CIFAR-10 subset repeated to full-size files (--subset), so"
      echo "throughput figures are for full-length epochs while accuracies are not comparable"
      echo "to training on all 50,000 images (the test accuracy is on the first"
      echo "$(sed -n 's/^KIT_TEST_IMAGES=//p' "$KIT/kit.env" 2>/dev/null) test images, each counted twice)."
    fi
    for i in "${!names[@]}"; do
      [[ "${results[$i]}" == passed ]] && continue
      echo
      echo "## ${names[$i]}: ${results[$i]} (last 30 lines)"
      echo
      echo '```'
      tail -n 30 "$WORK/log-${names[$i]}.txt" 2>/dev/null
      echo '```'
    done
  } >"$report_dir/report.md"
  for name in "${names[@]}"; do
    echo "===== $name"
    tail -n 400 "$WORK/log-$name.txt" 2>/dev/null
  done >"$report_dir/logs.txt"
}
