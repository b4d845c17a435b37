#!/usr/bin/env bash
# One reading of a weights file (issue 47, class 2): a state dict as Python
# saves it from DataParallel ("module."), torch.compile ("_orig_mod."), both,
# or inside {"state_dict": ...} / {"model": ...}, in .pt, .pth (torch.save's
# zip layout and its legacy one) and .safetensors, a PyTorch Lightning
# checkpoint (.ckpt: its trainer's state beside a state_dict whose names
# start with the module's attribute, "model.") and Hugging Face's
# pytorch_model.bin, is the same model to every tool that reads weights:
# cifar-predict --weights, cifar-export --weights, cifar-eval --weights and
# cifar-train --init-weights. The class count (a 1000-class head, a 3-class
# one) comes from the file's layout undone, never from the names as saved
# (a "module." file with a 1000-class head was once built as a 10-class model
# and refused: "fc3.bias is [1000] in the file, [10] in the model").
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_python safetensors

# Each layout of one 1000-class net and one 3-class net, named LAYOUT-N.EXT.
"$PY" - <<'PY' || fail "writing the weights files failed"
import torch
from safetensors.torch import save_file
from cifar_models import Net
torch.manual_seed(0)
layouts = {
    "plain": lambda sd: sd,
    "dp": lambda sd: {"module." + k: v for k, v in sd.items()},
    "compiled": lambda sd: {"_orig_mod." + k: v for k, v in sd.items()},
    "dp_compiled": lambda sd: {"module._orig_mod." + k: v for k, v in sd.items()},
    "wrapped": lambda sd: {"state_dict": sd, "epoch": 3},
    "wrapped_dp": lambda sd: {"state_dict": {"module." + k: v for k, v in sd.items()}},
    "model_compiled": lambda sd: {"model": {"_orig_mod." + k: v for k, v in sd.items()}},
}
def lightning(sd):  # as trainer.save_checkpoint writes it (Lightning 2.x)
    return {"epoch": 3, "global_step": 12, "pytorch-lightning_version": "2.4.0",
            "state_dict": {"model." + k: v for k, v in sd.items()},
            "loops": {"fit_loop": {"epoch_progress": {"total": {"ready": 4, "completed": 3}}}},
            "callbacks": {"ModelCheckpoint{'monitor': None}": {
                "best_model_score": None, "kth_value": torch.tensor(float("inf"))}},
            "optimizer_states": [{"state": {0: {"momentum_buffer": torch.zeros(3)}},
                                  "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999),
                                                    "params": [0]}]}],
            "lr_schedulers": [], "hparams_name": "kwargs", "hyper_parameters": {"lr": 0.1}}
for n in (1000, 3):
    sd = Net(num_classes=n).state_dict()
    torch.save(lightning(sd), f"lightning-{n}.ckpt")
    torch.save(sd, f"hf-{n}.bin")
    for name, layout in layouts.items():
        torch.save(layout(sd), f"{name}-{n}.pt")
    # torch.save's legacy layout (before PyTorch 1.6), as published weights
    # often are; one copy whose fc3.weight is a strided view into a larger
    # storage that fc3.bias shares.
    torch.save(sd, f"legacy-{n}.pt", _use_new_zipfile_serialization=False)
    torch.save(sd, f"legacy_p3-{n}.pt", _use_new_zipfile_serialization=False, pickle_protocol=3)
    w, b = sd["fc3.weight"], sd["fc3.bias"]
    big = torch.zeros(w.shape[0], 2 * w.shape[1] + 1)
    big[:, 0:2 * w.shape[1]:2] = w
    big[:, -1] = b
    views = dict(sd, **{"fc3.weight": big[:, 0:2 * w.shape[1]:2], "fc3.bias": big[:, -1]})
    assert not views["fc3.weight"].is_contiguous()
    torch.save({"state_dict": views}, f"legacy_views-{n}.pth", _use_new_zipfile_serialization=False)
    torch.save(layouts["dp"](sd), f"dp_pth-{n}.pth")
    for name in ("dp", "compiled", "dp_compiled"):
        save_file({k: v.contiguous() for k, v in layouts[name](sd).items()}, f"st_{name}-{n}.safetensors")
PY
layouts=(plain dp compiled dp_compiled wrapped wrapped_dp model_compiled dp_pth st_dp st_compiled
  st_dp_compiled legacy legacy_p3 legacy_views lightning hf)
wfile() { ls "$1-$2".*; }  # wfile LAYOUT N: its path
write_folder pets cat,dog,frog train,test 8
cp "$(ls pets/test/cat/*.png | head -1)" img.png

# cifar-predict: the same top-3 for every layout, the 1000-class names.
"$PREDICT" --weights "$(wfile plain 1000)" --model net --top-k 3 img.png >plain.out ||
  fail "cifar-predict on the plain file"
grep -Eq "class_[0-9]+" plain.out || fail "the plain 1000-class file's classes: $(cat plain.out)"
for layout in "${layouts[@]}"; do
  f=$(wfile "$layout" 1000)
  "$PREDICT" --weights "$f" --model net --top-k 3 img.png >"$layout.out" 2>"$layout.err" ||
    { cat "$layout.err"; fail "cifar-predict --weights $f"; }
  cmp -s plain.out "$layout.out" || fail "$f predicts otherwise: $(cat "$layout.out") vs $(cat plain.out)"
done
pass "cifar-predict --weights: every layout predicts as the plain 1000-class file"

# cifar-export: the model written under its own names, its 1000-class head.
for layout in "${layouts[@]}"; do
  expect 0 "" -- "$EXPORT" --weights "$(wfile "$layout" 1000)" --model net --out "$layout-out.safetensors"
done
"$PY" - "${layouts[@]/%/-out.safetensors}" <<'PY' || fail "cifar-export --weights wrote the wrong model"
import sys
from safetensors.torch import load_file
for path in sys.argv[1:]:
    sd = load_file(path)
    assert sd["fc3.weight"].shape == (1000, 84), (path, sd["fc3.weight"].shape)
    assert not any(k.startswith(("module.", "_orig_mod.")) for k in sd), (path, list(sd)[:3])
    # What the source did not record is not recorded as if it had been.
    from safetensors import safe_open
    meta = safe_open(path, "pt").metadata()
    assert not {"mean", "std", "classes"} & set(meta), (path, meta)
    assert meta["model"] == "net", (path, meta)
PY
pass "cifar-export --weights: every layout exports the 1000-class net under its own names"
expect 0 "normalisation: .*the training default \(the file does not say\)" -- \
  "$PREDICT" --weights "${layouts[0]}-out.safetensors" img.png

# Python's cifar_models.load takes the same layouts as the C++ reader.
"$PY" - "${layouts[@]}" <<'PY' || fail "cifar_models.load does not take every layout"
import glob, sys, torch
import cifar_models
x = torch.rand(2, 3, 32, 32)
want = cifar_models.load("plain-1000.pt", model="net")[0](x)
for layout in sys.argv[1:]:
    path = glob.glob(f"{layout}-1000.*")[0]
    got = cifar_models.load(path, model="net")[0](x)
    assert torch.equal(got, want), path
PY
pass "cifar_models.load: every layout gives the plain file's logits"

# cifar-eval: a 3-class file evaluates on 3 classes; a 1000-class one is
# refused naming its 1000 outputs (not the 10 of a misread head).
for layout in "${layouts[@]}"; do
  expect 0 "Accuracy of the network" -- "$EVAL" --weights "$(wfile "$layout" 3)" --model net \
    --data pets --device cpu
  expect 1 "weights file $(wfile "$layout" 1000) was trained on 1000 classes \(class_0, .*holds 3 classes" -- \
    "$EVAL" --weights "$(wfile "$layout" 1000)" --model net --data pets --device cpu
done
pass "cifar-eval --weights: every layout's class count is the file's"

# cifar-train --init-weights: the 1000-class head replaced by a 3-class one,
# the 3-class one kept; nothing refused.
common=(--model net --data pets --device cpu --threads 1 --epochs 1 --batch-size 8)
for layout in "${layouts[@]}"; do
  expect 0 "its head \(fc3\) has 1000 classes, the data 3: the body is loaded" -- \
    "$TRAIN" "${common[@]}" --init-weights "$(wfile "$layout" 1000)" --run-dir "r-$layout" \
    --checkpoint "r-$layout.pt"
  expect 0 "init weights: $(wfile "$layout" 3) \(net\)" -- \
    "$TRAIN" "${common[@]}" --init-weights "$(wfile "$layout" 3)" --run-dir "s-$layout" \
    --checkpoint "s-$layout.pt"
done
pass "cifar-train --init-weights: every layout starts the run, a new head for 1000 classes"

# A state dict under two wrapper keys is refused by the tools and by Python
# (one was taken by the order of a list, without a word); a file of the
# other format under a weights extension is named so; a file that records
# no normalisation is warned about, naming --mean and --std.
"$PY" - <<'PY' || fail "writing the odd files failed"
import shutil, torch
from cifar_models import Net
sd = Net().state_dict()
torch.save({"model": sd, "state_dict": {k: torch.zeros_like(v) for k, v in sd.items()}}, "two.pt")
shutil.copy("st_dp-1000.safetensors", "st_as.pt")
shutil.copy("plain-1000.pt", "pt_as.safetensors")
torch.save({"encoder." + k: v for k, v in sd.items()}, "held.pt")
PY
expect 1 "weights file two.pt: it holds a state dict under each of the keys state_dict, model, and which is the model's is not said" -- \
  "$EVAL" --weights two.pt --model net --data pets --device cpu
out=$("$PY" -c "import cifar_models; cifar_models.load('two.pt', model='net')" 2>&1)
grep -q "two.pt: it holds a state dict under each of the keys state_dict, model" <<<"$out" ||
  fail "cifar_models.load took one of two state dicts: $out"
expect 2 "weights file st_as.pt is a safetensors file, not torch.save's: name it st_as.safetensors" -- \
  "$PREDICT" --weights st_as.pt --model net img.png
expect 2 "weights file pt_as.safetensors is a PyTorch file \(torch.save's zip or pickle\), not safetensors: name it pt_as.pt" -- \
  "$EXPORT" --weights pt_as.safetensors --out x.safetensors
expect 0 "warning: weights file plain-3.pt records no normalisation: its images are normalised with CIFAR-10's mean 0.4914,0.4822,0.4465 and std 0.247,0.2435,0.2616; .* give them as --mean and --std" -- \
  "$EVAL" --weights plain-3.pt --model net --data pets --device cpu
expect 1 "every name starts with 'encoder.', the attribute of a module that holds the model: save that attribute's state_dict\(\) \(e.g. torch.save\(module.encoder.state_dict\(\), path\)\)" -- \
  "$PREDICT" --weights held.pt --model net img.png
printf 'a Lightning checkpoint' >exists.ckpt  # an existing one: the format is what is wrong
for ext in ckpt bin; do
  expect 2 "weights file x.$ext: .ckpt \(Lightning's checkpoints\) and .bin \(Hugging Face's pytorch_model.bin\) are read, not written" -- \
    "$EXPORT" --weights plain-3.pt --model net --out "x.$ext"
done
expect 2 "weights file exists.ckpt: .ckpt \(Lightning's checkpoints\) and .bin" -- \
  "$EXPORT" --weights plain-3.pt --model net --out exists.ckpt
pass "two state dicts refused, formats named, an unrecorded normalisation warned about, a module's attribute named, .ckpt and .bin not written"
