#!/usr/bin/env bash
# A run from --init-weights records its file's SHA-256 in the run folder's
# config.toml (init-weights-sha256), so that --config RUN/config.toml repeats
# the run from the same weights or refuses a file that has changed since (it
# trained from the new weights without a word); an --init-weights given on the
# command line replaces the config file's, digest and all.
source "$(dirname "$0")/lib/common.bash"
BIN=$(cd "$(dirname "$TRAIN")" && pwd)
EXPORT=$BIN/cifar-export
write_folder pets cat,dog train,test 8
common=(--data pets --device cpu --threads 1 --batch-size 8 --epochs 1 -q)
"$TRAIN" "${common[@]}" --run-dir base -o base.pt || fail "the base run failed"
"$EXPORT" --checkpoint base.pt --out init.safetensors -q || fail "cifar-export failed"
"$TRAIN" "${common[@]}" --init-weights init.safetensors --run-dir A -o a.pt || fail "run A failed"
digest=$(sha256sum init.safetensors | cut -d' ' -f1)
grep -qx "init-weights-sha256 = \"$digest\"" A/config.toml ||
  { grep init-weights A/config.toml; fail "config.toml does not record the file's SHA-256"; }
"$TRAIN" --config A/config.toml --run-dir B -o b.pt -q || fail "the rerun of A's config.toml failed"
cmp -s A/model.safetensors B/model.safetensors || fail "the rerun of A's config.toml trained otherwise"
pass "--init-weights: config.toml records its SHA-256; a rerun from it trains the same weights"

# The file changes (another base's weights): the rerun is refused, nothing written.
"$TRAIN" "${common[@]}" --epochs 2 --run-dir base2 -o base2.pt || fail "the second base run failed"
"$EXPORT" --checkpoint base2.pt --out init.safetensors -q || fail "cifar-export over init failed"
expect 1 "--init-weights .*init.safetensors: its SHA-256 is [0-9a-f]{64}, not the $digest that --init-weights-sha256 asks for: it is another file, or the file has changed since the digest was taken .*give the file with that digest, or, to start from this one, give --init-weights on the command line without --init-weights-sha256" -- \
  "$TRAIN" --config A/config.toml --run-dir C -o c.pt
[[ ! -e C && ! -e c.pt ]] || fail "the refused rerun wrote its outputs"
pass "a rerun whose --init-weights file changed is refused, naming both digests"

# Named again on the command line, the file is this run's: the digest goes with it.
new=$(sha256sum init.safetensors | cut -d' ' -f1)
expect 0 "--init-weights replaces --config A/config.toml's, and so its init-weights-sha256" -- \
  "$TRAIN" --config A/config.toml --init-weights init.safetensors --run-dir D -o d.pt
grep -qx "init-weights-sha256 = \"$new\"" D/config.toml || fail "D's config.toml does not record the new file"
expect 0 "" -- "$TRAIN" "${common[@]}" --init-weights init.safetensors --init-weights-sha256 "${new:0:8}" \
  --run-dir E -o e.pt
expect 1 "its SHA-256 is ${new:0:12}, not the 0123abcd that" -- \
  "$TRAIN" "${common[@]}" --init-weights init.safetensors --init-weights-sha256 0123abcd --run-dir F -o f.pt
expect 2 "--init-weights-sha256 'xyz' is not a SHA-256" -- "$TRAIN" "${common[@]}" --init-weights init.safetensors \
  --init-weights-sha256 xyz
expect 2 "--init-weights-sha256 checks the file --init-weights names" -- "$TRAIN" "${common[@]}" \
  --init-weights-sha256 0123abcd
pass "--init-weights-sha256: a prefix of 8 checks; a wrong digest, a non-hex one, one without a file refused"

# A resume reads no weights file: the run's digest stays its record, and
# another given with --resume is refused.
"$TRAIN" "${common[@]}" --epochs 2 --resume D/last.pt --init-weights init.safetensors --run-dir D -o d.pt ||
  fail "resuming D with its --init-weights failed"
grep -qx "init-weights-sha256 = \"$new\"" D/config.toml || { grep init-weights D/config.toml; fail "a resume dropped the run's digest"; }
expect 2 "--init-weights-sha256 checks the file a new run starts from, but --resume D/last.pt goes on from its checkpoint's weights \(its run recorded ${new:0:12}...\): drop --init-weights-sha256" -- \
  "$TRAIN" "${common[@]}" --epochs 3 --resume D/last.pt --init-weights init.safetensors --init-weights-sha256 deadbeef \
  --run-dir D -o d.pt
expect 0 "" -- "$TRAIN" --config D/config.toml --epochs 3 --resume D/last.pt -q
# A config file that pins a digest without naming the file: it checks the
# file the command line names.
printf 'init-weights-sha256 = "0123abcd"\n' >pin.toml
expect 1 "not the 0123abcd that --init-weights-sha256 asks for" -- \
  "$TRAIN" --config pin.toml "${common[@]}" --init-weights init.safetensors --run-dir G -o g.pt
pass "a resume keeps the run's digest and refuses another; a config file's digest without its file checks the command line's"
