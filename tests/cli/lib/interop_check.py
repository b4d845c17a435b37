"""Python side of the interop CLI tests: PyTorch as the client of cifar-train's files.

    python -m interop_check COMMAND ARGS...   (see the functions below)
"""
import json
import os
import sys
import zlib
import struct

import torch

import cifar_models as cm


def png_bytes(hwc):
    """Lossless 8-bit RGB PNG of an (H, W, 3) uint8 tensor, with zlib only."""
    h, w, _ = hwc.shape
    raw = b"".join(b"\x00" + bytes(hwc[y].flatten().tolist()) for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def write_pngs(data_dir, out_dir, count):
    """The first COUNT test images as out_dir/NNNNN.png; prints the file names."""
    images, _ = cm.read_cifar10(os.path.join(data_dir, "test_batch.bin"))
    os.makedirs(out_dir, exist_ok=True)
    names = []
    for i in range(int(count)):
        name = os.path.join(out_dir, f"{i:05d}.png")
        with open(name, "wb") as f:
            f.write(png_bytes(images[i].permute(1, 2, 0)))
        names.append(name)
    print("\n".join(names))


def load_model(path, model):
    """Loads as a Python user would: torch.load (weights_only default) or safetensors; strict."""
    if path.endswith(".safetensors"):
        from safetensors.torch import load_file
        from safetensors import safe_open
        sd = load_file(path)
        with safe_open(path, framework="pt") as f:
            meta = f.metadata()
    else:
        sd = torch.load(path)  # weights_only=True is the default in torch 2.6+
        meta = {}
        assert type(sd) is dict, f"{path}: torch.load gave a {type(sd).__name__}, not a plain dict"
    m = cm.make_model(model, stem=(meta or {}).get("stem", "cifar"))
    m.load_state_dict(sd, strict=True)
    assert sd["fc.bias" if model == "resnet18" else "fc3.bias"].dtype == torch.float32
    if model == "resnet18":
        assert sd["bn1.num_batches_tracked"].dtype == torch.int64
    return m.eval(), meta or {}


def logits_of(model, images, mean=cm.DEFAULT_MEAN, std=cm.DEFAULT_STD, batch=100):
    out = []
    with torch.no_grad():
        for i in range(0, len(images), batch):
            out.append(model(cm.normalize(images[i:i + batch], mean, std)))
    return torch.cat(out)


def compare_export(data_dir, model_name, eval_json, predict_json, limit, *files):
    """Loads each exported file in Python; its test accuracy must equal
    cifar-eval's (EVAL_JSON: its --json output, or an accuracy), its logits cifar-predict's (PNG of the first LIMIT images)
    within 1e-4, its predicted classes all equal. EVAL_JSON "-": the logits only, on
    the first LIMIT images (a ResNet-18 pass over the whole test set takes minutes
    on one CPU thread)."""
    images, labels = cm.read_cifar10(os.path.join(data_dir, "test_batch.bin"))
    if eval_json == "-":
        images, labels = images[:int(limit)], labels[:int(limit)]
    # cifar-eval --json output, or the accuracy itself (from a run's metrics.csv)
    cpp_acc = (None if eval_json == "-" else json.load(open(eval_json))["accuracy"]
               if eval_json.endswith(".json") else float(eval_json))
    cpp = json.load(open(predict_json))
    cpp_logits = torch.tensor([p["logits"] for p in cpp])
    cpp_classes = [p["class"] for p in cpp]
    first = None
    for path in files:
        model, meta = load_model(path, model_name)
        if path.endswith(".safetensors"):
            for key in ("model", "stem", "mean", "std", "classes", "cifar_train_version"):
                assert key in meta, f"{path}: metadata lacks {key}: {meta}"
            assert meta["model"] == model_name
            assert json.loads(meta["classes"]) == list(cm.CLASSES)
            assert json.loads(meta["mean"]) == list(cm.DEFAULT_MEAN)
        sd = model.state_dict()
        if first is None:
            first = sd
            logits = logits_of(model, images)
        else:  # both formats hold exactly the same tensors
            assert all(torch.equal(first[k], sd[k]) for k in first), f"{path} differs from {files[0]}"
        acc = (logits.argmax(1) == labels).float().mean().item()
        correct = int((logits.argmax(1) == labels).sum())
        diff = (logits[:int(limit)] - cpp_logits).abs().max().item()
        classes = [cm.CLASSES[i] for i in logits[:int(limit)].argmax(1).tolist()]
        same = sum(a == b for a, b in zip(classes, cpp_classes))
        accuracies = ("" if cpp_acc is None else f"Python accuracy {acc:.4f} ({correct}/10000), "
                      f"C++ {cpp_acc:.4f}; ")
        print(f"{os.path.basename(path)}: {accuracies}max |logit diff| vs cifar-predict {diff:.2e} "
              f"over {limit} images; classes equal {same}/{limit}")
        assert cpp_acc is None or correct == round(cpp_acc * 10000), "accuracies differ"
        assert diff < 1e-4, f"logits differ by {diff}"
        assert same == int(limit), "predicted classes differ"


def train_python_net(data_dir, out_prefix, steps):
    """Trains the Python Net briefly; saves state_dict() (OrderedDict) as
    PREFIX_sd.pt, {"model": sd, "epoch": 1, "optimizer": ...} as
    PREFIX_ckpt.pth and safetensors as PREFIX.safetensors; prints its test accuracy."""
    torch.manual_seed(0)
    images, labels = cm.read_cifar10(os.path.join(data_dir, "data_batch_1.bin"))
    model = cm.Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for step in range(int(steps)):
        i = torch.randint(0, len(images), (32,))
        loss = torch.nn.functional.cross_entropy(model(cm.normalize(images[i])), labels[i])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    sd = model.state_dict()
    torch.save(sd, out_prefix + "_sd.pt")
    torch.save({"model": sd, "epoch": 1, "optimizer": opt.state_dict()}, out_prefix + "_ckpt.pth")
    from safetensors.torch import save_file
    save_file(sd, out_prefix + ".safetensors", metadata={"model": "net"})
    test_images, test_labels = cm.read_cifar10(os.path.join(data_dir, "test_batch.bin"))
    print((logits_of(model, test_images).argmax(1) == test_labels).float().mean().item())


def python_predictions(weights, model_name, predict_json):
    """Python's classes for the files cifar-predict classified must all equal its."""
    if weights.endswith(".safetensors"):
        from safetensors.torch import load_file
        sd = load_file(weights)
    else:
        sd = torch.load(weights)
        sd = sd["model"] if "model" in sd else sd
    model = cm.make_model(model_name)
    model.load_state_dict(sd, strict=True)
    model.eval()
    cpp = json.load(open(predict_json))
    files = [p["file"] for p in cpp]
    import PIL.Image as Image
    imgs = torch.stack([torch.frombuffer(bytearray(Image.open(f).convert("RGB").tobytes()), dtype=torch.uint8)
                        .view(32, 32, 3).permute(2, 0, 1) for f in files])
    classes = [cm.CLASSES[i] for i in logits_of(model, imgs).argmax(1).tolist()]
    same = sum(p["class"] == c for p, c in zip(cpp, classes))
    print(f"{os.path.basename(weights)}: cifar-predict and Python agree on {same}/{len(cpp)} images")
    assert same == len(cpp)


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
