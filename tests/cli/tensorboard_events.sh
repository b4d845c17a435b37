#!/usr/bin/env bash
# The event files we write, read by TensorBoard's own reader (EventAccumulator):
# scalars, the confusion heat map, text and hparams come back as written; the
# per-epoch scalars equal metrics.csv (same epochs, same values); a
# file cut inside its last record is read up to the record before; a changed
# byte is caught by the reader's CRC check.
source "$(dirname "$0")/lib/common.bash"
PY=${CIFAR_VENV_PYTHON:-}
SAMPLE=${CIFAR_TENSORBOARD_SAMPLE:-}
[[ -x "$SAMPLE" ]] || { echo "SKIPPED: CIFAR_TENSORBOARD_SAMPLE (set by CMake) is not a program"; exit 77; }
if [[ -z "$PY" || ! -x "$PY" ]] || ! "$PY" -c 'import tensorboard' 2>/dev/null; then
  echo "SKIPPED: tensorboard is not importable by the project's Python ($PY); run scripts/setup.sh"
  exit 77
fi

"$SAMPLE" tb >manifest.json || fail "cifar-tensorboard-sample failed"
event=$(ls tb/events.out.tfevents.*) || fail "no event file in tb/"
[[ $(wc -l <<<"$event") -eq 1 ]] || fail "more than one event file: $event"

cat >check.py <<'PY'
import json, struct, sys
import numpy as np
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.plugins.hparams import metadata as hp

logdir, manifest, mode = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.IMAGES: 0, ea.TENSORS: 0})
acc.Reload()
tags = acc.Tags()

def scalars(tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]

if mode == "corrupt":  # the image record was changed: it and all after it are gone
    assert tags["tensors"] == ["config"], tags
    assert tags["images"] == [] and tags["scalars"] == [], tags
    print("reader dropped the corrupted record and the rest")
    sys.exit(0)

for tag, points in manifest["scalars"].items():
    want = [(s, float(np.float32(v))) for s, v in points]
    if mode == "truncated" and tag == "train/loss":
        want = want[:-1]  # the last record was cut
    got = scalars(tag)
    assert [s for s, _ in got] == [s for s, _ in want], (tag, got, want)
    assert all(abs(g - w) <= 1e-7 * max(1, abs(w)) for (_, g), (_, w) in zip(got, want)), (tag, got, want)
    print(f"scalars {tag}: {len(got)} values match")

import csv
rows = list(csv.DictReader(open(f"{logdir}/metrics.csv")))
for col in ["train_loss", "train_accuracy", "test_loss", "test_accuracy", "lr",
            "images_per_second", "seconds", "eval_seconds"]:
    got = scalars(f"epoch/{col}")
    assert [s for s, _ in got] == [int(r["epoch"]) for r in rows], (col, got)
    for (_, g), r in zip(got, rows):
        assert abs(g - float(r[col])) <= 1e-6 * max(1, abs(g)) + 1e-6, (col, g, r[col])
print(f"epoch scalars equal metrics.csv: {len(rows)} epochs x 8 columns")
names = manifest["class_names"]
for epoch, accs in manifest["per_class"].items():
    for name, want in zip(names, accs):
        got = dict(scalars(f"test_class_accuracy/{name}"))[int(epoch)]
        assert abs(got - want) < 1e-6, (name, epoch, got, want)
heat = acc.Images("test/confusion_matrix")
assert [(i.step, i.width, i.height) for i in heat] == [(e, 321, 321) for e in (1, 2, 3)], heat
print(f"per-class accuracies and the confusion heat map at epochs 1-3")

for tag, want in manifest["images"].items():
    (img,) = acc.Images(tag)
    png = img.encoded_image_string
    assert png[:8] == b"\x89PNG\r\n\x1a\n", png[:8]
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    assert (img.step, img.width, img.height) == (want["step"], want["width"], want["height"]), img
    assert (width, height) == (want["width"], want["height"]) and len(png) == want["bytes"]
    print(f"image {tag}: {width}x{height} PNG at step {img.step}")

for tag, text in manifest["text"].items():
    assert tag in acc.PluginTagToContent("text"), acc.PluginTagToContent("text")
    (t,) = acc.Tensors(tag)
    assert t.tensor_proto.string_val[0].decode() == text, t.tensor_proto
    print(f"text {tag}: {len(text)} characters match")

content = acc.PluginTagToContent("hparams")
start = hp.parse_session_start_info_plugin_data(content["_hparams_/session_start_info"])
got = {k: v.WhichOneof("kind") and getattr(v, v.WhichOneof("kind")) for k, v in start.hparams.items()}
assert got == manifest["hparams"], (got, manifest["hparams"])
experiment = hp.parse_experiment_plugin_data(content["_hparams_/experiment"])
assert [m.name.tag for m in experiment.metric_infos] == ["test/accuracy"], experiment
assert sorted(h.name for h in experiment.hparam_infos) == sorted(manifest["hparams"])
end = hp.parse_session_end_info_plugin_data(content["_hparams_/session_end_info"])
assert end.status == 1, end  # STATUS_SUCCESS
print(f"hparams: {got}, metric test/accuracy, status success")
PY
"$PY" check.py tb manifest.json whole || fail "TensorBoard's reader disagrees with what was written"
pass "TensorBoard's reader reads back the scalars (equal to metrics.csv), the images, the text and the hparams"

mkdir cut && cp "$event" tb/metrics.csv cut/
f=$(ls cut/events.out.tfevents.*)
truncate -s $(($(stat -c %s "$f") - 5)) "$f"
"$PY" check.py cut manifest.json truncated || fail "a file cut in its last record is not read up to it"
pass "a file cut inside its last record is read up to the record before"

mkdir bad && cp "$event" bad/
f=$(ls bad/events.out.tfevents.*)
"$PY" - "$f" <<'PY' || fail "could not corrupt the file"
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[data.find(b"IHDR") + 20] ^= 0xFF  # a byte inside the image record
open(sys.argv[1], "wb").write(bytes(data))
PY
"$PY" check.py bad manifest.json corrupt || fail "the reader did not notice a changed byte"
pass "a changed byte makes the reader stop at that record (the CRCs are checked)"
