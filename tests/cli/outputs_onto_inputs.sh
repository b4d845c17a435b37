#!/usr/bin/env bash
# No tool writes onto a file it reads (issue 40, class 1), checked for every
# pair: each output of each tool (cifar-train's --checkpoint, every file of
# its run folder, the image cache its data read writes; cifar-eval's image
# cache; cifar-export's --out; cifar-predict's --csv) pointed at each of the
# tool's inputs (--config, --resume, --init-weights, the data's files,
# --checkpoint, --weights, the images) by the input's own name, a symbolic
# link or a hard link, is
# refused (exit 2) naming both before anything is written: every input
# keeps its SHA-256 and the run folder gets no file. The exceptions: a
# resumed run goes on in the checkpoint (--resume) and the config.toml
# (--config) it was started from.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
EXPORT=$BIN/cifar-export
make_fake_data bin
write_folder pets cat,dog train,test
quick=(--device cpu --train-limit 40 --test-limit 20 --epochs 1 --batch-size 20 -q)
"$TRAIN" --data bin "${quick[@]}" --run-dir seed -o ck.pt >seed.log 2>&1 || { cat seed.log; fail "could not train ck.pt"; }
"$EXPORT" --checkpoint ck.pt --out w.safetensors 2>/dev/null || fail "could not export w.safetensors"
printf 'epochs = 1\n' >cfg.toml

# The inputs, as "file|the words that name it|options that read it".
train_inputs=(
  "cfg.toml|--config|--config cfg.toml"
  "ck.pt|--resume|--resume ck.pt --epochs 2"
  "w.safetensors|--init-weights|--init-weights w.safetensors"
  "bin/data_batch_1.bin|--data's data_batch_1.bin|"
)
model_inputs=(
  "ck.pt|--checkpoint|--checkpoint ck.pt"
  "w.safetensors|--weights|--weights w.safetensors"
)
every_input=(cfg.toml ck.pt w.safetensors bin/data_batch_1.bin pets/train/cat/000.png)
sums() { sha256sum "${every_input[@]}"; }
before=$(sums)

n=0
# refused WORDS SPOT -- COMMAND...: exit 2 naming the input (WORDS), the
# inputs unchanged, and nothing in the run folder RUN but SPOT (a planted link).
refused() {
  local words=$1 spot=$2
  shift 3
  expect 2 "is the same file as ${words//./\\.}" -- "$@"
  [[ $(sums) == "$before" ]] || fail "'$*' changed an input"
  if [[ -d run ]]; then
    local left
    left=$(cd run && ls -A | grep -vxF -- "$spot")
    [[ -z $left ]] || fail "'$*' wrote into its run folder: $left"
  fi
  rm -rf run link.pt
  n=$((n + 1))
}

# plant HOW FILE AT: AT becomes the same file as FILE ("soft": a symbolic
# link, "hard": a hard link); its folder is made.
plant() {
  mkdir -p "$(dirname "$3")"
  if [[ $1 == soft ]]; then ln -s "$PWD/$2" "$3"; else ln "$2" "$3"; fi
}

# --- cifar-train ------------------------------------------------------------------
for input in "${train_inputs[@]}"; do
  IFS='|' read -r file words opts <<<"$input"
  read -ra given <<<"$opts"
  # What the input continues, which the run's files of the same kind may replace.
  continued=none
  [[ $words == --resume ]] && continued=checkpoint
  [[ $words == --config ]] && continued=settings
  # --checkpoint: the file's own name, a symbolic link and a hard link to it.
  if [[ $continued != checkpoint ]]; then
    refused "$words" "" -- "$TRAIN" --data bin "${quick[@]}" "${given[@]}" --run-dir run -o "$file"
    for how in soft hard; do
      plant $how "$file" link.pt
      refused "$words" "" -- "$TRAIN" --data bin "${quick[@]}" "${given[@]}" --run-dir run -o link.pt
    done
  fi
  # Every file of the run folder, planted there as a link to the input.
  for name in config.toml metrics.csv confusion.csv last.pt best.pt model.safetensors .cifar-train.lock; do
    [[ $continued == checkpoint && $name == *.pt ]] && continue
    [[ $continued == settings && $name == config.toml ]] && continue
    for how in soft hard; do
      plant $how "$file" "run/$name"
      refused "$words" "$name" -- "$TRAIN" --data bin "${quick[@]}" "${given[@]}" --run-dir run -o out.pt
    done
  done
  # The image cache reading an image folder writes (the binary data is no input here).
  [[ $file == bin/* ]] && continue
  for split in train test; do
    for how in soft hard; do
      plant $how "$file" pets/.cifar-cache/$split.bin
      refused "$words" "" -- "$TRAIN" --data pets "${quick[@]}" "${given[@]}" --run-dir run -o out.pt
      rm -rf pets/.cifar-cache
    done
  done
done
# The exceptions: a resumed run goes on in the checkpoint and config.toml it
# was started from.
expect 0 "" -- "$TRAIN" --config seed/config.toml --data bin "${quick[@]}" --epochs 2 \
  --resume ck.pt --run-dir seed -o ck.pt
before=$(sums)

# --- cifar-eval: its image cache ------------------------------------------------
for input in "${model_inputs[@]}"; do
  IFS='|' read -r file words opts <<<"$input"
  read -ra given <<<"$opts"
  for how in soft hard; do
    plant $how "$file" pets/.cifar-cache/test.bin
    refused "$words" "" -- "$EVAL" --data pets --device cpu "${given[@]}"
    rm -rf pets/.cifar-cache
  done
done

# --- cifar-export: --out ----------------------------------------------------------
for input in "${model_inputs[@]}"; do
  IFS='|' read -r file words opts <<<"$input"
  read -ra given <<<"$opts"
  refused "$words" "" -- "$EXPORT" "${given[@]}" --out "$file"
  for how in soft hard; do
    plant $how "$file" link.pt
    refused "$words" "" -- "$EXPORT" "${given[@]}" --out link.pt
  done
done

# --- cifar-predict: --csv (the images named by the folder that holds them) ---------
PREDICT=$BIN/cifar-predict
for input in "${model_inputs[@]}" "pets/train/cat/000.png|the image|--checkpoint ck.pt"; do
  IFS='|' read -r file words opts <<<"$input"
  read -ra given <<<"$opts"
  refused "$words" "" -- "$PREDICT" "${given[@]}" --csv "$file" pets/train/cat
  for how in soft hard; do
    plant $how "$file" link.csv
    refused "$words" "" -- "$PREDICT" "${given[@]}" --csv link.csv pets/train/cat
    rm -f link.csv
  done
done
echo "all $n output-onto-input pairs refused, every input unchanged"
