#!/usr/bin/env bash
# C++ -> Python, airbench94: train the speedrun's network briefly on the real
# data (the classic recipe), load the run's model.safetensors into the Python
# twin (scripts/python/cifar_models.py) with strict=True, both directly and
# through cifar_models.load() (which reads the model from the metadata); its
# logits on the first 200 test images must equal cifar-predict's (the same
# images as lossless PNG, from the checkpoint) within 1e-4 relative to the
# largest logit, and every predicted class must agree.
source "$(dirname "$0")/lib/common.bash"
source "$SRC/tests/cli/lib/interop.bash"
need_real_data
need_python safetensors
"$TRAIN" --data "$REAL_DATA" --device cpu --model airbench94 --epochs 1 --train-limit 2000 --test-limit 200 \
  --batch-size 500 --eval-batch-size 500 --checkpoint airbench.pt --run-dir run >train.log 2>&1 ||
  { tail train.log >&2; fail "cifar-train failed"; }
[[ -f run/model.safetensors ]] || fail "no run/model.safetensors: $(ls run)"
"$PY" -m interop_check write_pngs "$REAL_DATA" png 200 >files.txt || fail "writing PNGs failed"
mapfile -t files <files.txt
"$PREDICT" --checkpoint airbench.pt --json --logits "${files[@]}" >predict.json 2>predict.err ||
  { cat predict.err >&2; fail "cifar-predict failed"; }
"$PY" - "$REAL_DATA" run/model.safetensors predict.json <<'PY' || fail "Python's airbench94 disagrees with cifar-predict"
import json, os, sys
import torch
import cifar_models as cm
from safetensors.torch import load_file

data, weights, predict = sys.argv[1:]
sd = load_file(weights)
model = cm.make_model("airbench94")
model.load_state_dict(sd, strict=True)
model.eval()
assert not model.whiten.weight.requires_grad and not model.layers[2].norm1.weight.requires_grad
assert sd["layers.1.norm1.num_batches_tracked"].dtype == torch.int64
assert int(sd["layers.1.norm1.num_batches_tracked"]) == 4, "2000 images in batches of 500: 4 steps"
assert not torch.equal(sd["layers.1.norm1.bias"], torch.zeros(64)), "the norm biases did not train"
assert torch.equal(sd["layers.1.norm1.weight"], torch.ones(64)), "a frozen norm weight moved"
loaded, info = cm.load(weights)
assert info["model"] == "airbench94" and isinstance(loaded, cm.Airbench94), info

images, _ = cm.read_cifar10(os.path.join(data, "test_batch.bin"))
images = images[:200]
cpp = json.load(open(predict))
cpp_logits = torch.tensor([p["logits"] for p in cpp])
with torch.no_grad():
    x = cm.normalize(images, info["mean"], info["std"])
    logits = model(x)
    assert torch.equal(logits, loaded(x)), "cifar_models.load gives another model"
scale = cpp_logits.abs().max().item()
diff = (logits - cpp_logits).abs().max().item()
classes = [cm.CLASSES[i] for i in logits.argmax(1).tolist()]
same = sum(a == p["class"] for a, p in zip(classes, cpp))
print(f"airbench94: max |logit diff| vs cifar-predict {diff:.2e} (largest logit {scale:.3g}) "
      f"over {len(cpp)} images; classes equal {same}/{len(cpp)}")
assert len(cpp) == 200 and scale > 0
assert diff <= 1e-4 * scale, f"logits differ by {diff} (relative {diff / scale:.2e})"
assert same == len(cpp), "predicted classes differ"
PY
pass "Python's airbench94 loads cifar-train's weights (strict) and gives cifar-predict's logits"
