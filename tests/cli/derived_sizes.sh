#!/usr/bin/env bash
# Checks on what the run will really do (issue 47, class 4): every size a run
# trains at, --resolution-schedule scaled by the image side (written for 32
# px: at --image-size 12, 16 px is 6), is checked against the model's
# declared limits (model/model_registry.h: airbench94 takes 9 px or more,
# no image is read past 1024) at start, exit 2, nothing written; before, the
# run started and stopped in the scaled epoch with LibTorch's "Output size is
# too small". Every source of the two values: flags, a config file, the
# shipped speedrun config, a resumed run's image size; and a schedule that
# fits still trains at its scaled size.
source "$(dirname "$0")/lib/common.bash"
make_fake_data data
small=(--data data --device cpu --threads 1 --train-limit 300 --test-limit 100 --batch-size 100
  --eval-batch-size 100 --no-tensorboard)
air=(--recipe airbench94 --model airbench94 "${small[@]}")

# refused WHAT PATTERN ARGS...: exit 2 naming PATTERN, and no file written.
refused() {
  local what=$1 pattern=$2
  shift 2
  local before
  before=$(find . | sort)
  expect 2 "$pattern" -- "$TRAIN" "$@" --run-dir "run-$what" --checkpoint "ck-$what.pt"
  diff <(echo "$before") <(find . | sort) >&2 || fail "$what: files were written before the refusal"
}

under="under the least side airbench94 takes \(9 px\)"
refused flags "resolution-schedule 16 at 12 px images trains epoch 1 at 6 px .*$under: give sizes of 23 or more" \
  "${air[@]}" --epochs 1 --image-size 12 --resolution-schedule 16
refused later_stage "trains epoch 3 at 7 px \(its 16 px.* scaled by 14/32\), $under" \
  "${air[@]}" --image-size 14 --resolution-schedule 32x2,16 --epochs 3

cat >sizes.toml <<'EOF'
recipe = "airbench94"
image-size = 12
resolution-schedule = "20x2,28"
EOF
refused config_file "trains epoch 1 at 8 px .*$under" --config sizes.toml "${small[@]}" --epochs 3
cat >schedule.toml <<'EOF'
resolution-schedule = "16"
EOF
refused config_and_flag "trains epoch 1 at 6 px .*$under" --config schedule.toml "${air[@]}" \
  --epochs 1 --image-size 12
refused speedrun "trains epoch 1 at 8 px \(its 24 px.*$under" --config "$SRC/configs/speedrun.toml" \
  "${small[@]}" --epochs 1 --image-size 10
refused over "trains epoch 1 at 2048 px .*over the most airbench94 takes \(1024 px\): give sizes of 32 or less" \
  "${air[@]}" --epochs 1 --image-size 1024 --resolution-schedule 64

# A resumed run's image size (12 px, not given again) scales a new schedule.
"$TRAIN" "${air[@]}" --epochs 1 --image-size 12 --run-dir r12 --checkpoint r12.pt -q >r12.log 2>&1 ||
  { cat r12.log; fail "training at 12 px"; }
refused resumed "trains epoch 2 at 6 px .*$under" "${air[@]}" --resume r12.pt --epochs 2 \
  --resolution-schedule 16x2

# What fits trains, at the scaled size: 16 px at --image-size 24 is 12 px.
"$TRAIN" "${air[@]}" --epochs 1 --image-size 24 --resolution-schedule 16 --run-dir fits --checkpoint fits.pt \
  >fits.log 2>&1 || { cat fits.log; fail "a schedule that fits was refused or failed"; }
grep -q "epoch 1: training at 12 px (--resolution-schedule)" fits.log ||
  { cat fits.log; fail "epoch 1 did not train at 12 px"; }
pass "every scaled --resolution-schedule size is checked against the model at start"
