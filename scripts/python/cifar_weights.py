"""Weights files in Python as cifar-train reads them (cifar_models.py
re-exports load and read_weights): the layouts of docs/formats.md, the
metadata cifar-export writes, and the values and keys the tools refuse.
"""
import json
import math
import os
import pickle
import re

import torch

from cifar_nets import CLASSES, DEFAULT_MEAN, DEFAULT_STD, MODEL_NAMES, make_model


def read_weights(path):
    """(state_dict, metadata) from a .safetensors (metadata as written by
    cifar-export) or a .pt/.pth file (metadata empty)."""
    with open(path, "rb") as f:
        if f.read(8) == b"CIFARTRN":  # a checkpoint: cifar-train's own format, not torch.save's
            raise ValueError(
                f"{os.fspath(path)} is a cifar-train checkpoint, which Python does not read: "
                f"export its weights first (cifar-export --checkpoint {os.fspath(path)} --out "
                f"model.safetensors), or use the run folder's model.safetensors")
    if str(path).endswith(".safetensors"):
        from safetensors import safe_open
        from safetensors.torch import load_file
        with safe_open(path, framework="pt") as f:
            meta = dict(f.metadata() or {})
        return _unwrap(path, load_file(path)), meta
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        # torch's text goes on to advise weights_only=False, which would run
        # whatever code the file holds: said here without that advice.
        named = re.search(r"GLOBAL ([\w.]+)", str(e))
        if named:
            raise ValueError(f"{os.fspath(path)} holds Python objects, not only tensors "
                             f"({named.group(1)}): it is not loaded, as unpickling it could run "
                             "code; save model.state_dict() instead of the model or other "
                             "objects") from None
        reason = re.search(r"WeightsUnpickler error: ([^\n]*)", str(e))
        raise ValueError(f"{os.fspath(path)}: torch.load cannot read it "
                         f"({reason.group(1) if reason else type(e).__name__}); save "
                         "model.state_dict() with torch.save's defaults") from None
    return _unwrap(path, loaded), {}


def _unwrap(path, sd):
    """The state dict in the layouts cifar-train's reader takes too
    (docs/formats.md): a dict holding it under one of state_dict,
    model_state_dict, model, net or weights (under two: ValueError), and a
    prefix every name carries, module. (DataParallel) or _orig_mod.
    (torch.compile); a Lightning checkpoint's state_dict without the
    attribute every name starts with ("model.conv1.weight")."""
    lightning = isinstance(sd, dict) and "pytorch-lightning_version" in sd
    if isinstance(sd, dict):
        found = [k for k in ("state_dict", "model_state_dict", "model", "net", "weights")
                 if isinstance(sd.get(k), dict) and sd[k]
                 and all(torch.is_tensor(v) for v in sd[k].values())]
        if len(found) > 1:
            raise ValueError(f"{os.fspath(path)}: it holds a state dict under each of the keys "
                             f"{', '.join(found)}, and which is the model's is not said: save "
                             f"the one to use alone, e.g. torch.save(checkpoint[{found[0]!r}], "
                             "path)")
        if found:
            sd = sd[found[0]]
            if lightning and found[0] == "state_dict" and "." in next(iter(sd)):
                attribute = next(iter(sd)).split(".")[0] + "."
                if all(k.startswith(attribute) for k in sd):
                    sd = {k[len(attribute):]: v for k, v in sd.items()}
    stripped = True
    while stripped and sd:  # nested in any order, as cifar-train reads them
        stripped = False
        for prefix in ("module.", "_orig_mod."):
            if all(k.startswith(prefix) for k in sd):
                sd = {k[len(prefix):]: v for k, v in sd.items()}
                stripped = True
    return sd


def _metadata(path, meta):
    """The metadata's values, checked as cifar-train checks them: ValueError
    naming the file and the key."""
    def read(key, default):
        if key not in meta:
            return default
        try:
            return json.loads(meta[key]) if key in ("mean", "std", "classes") else meta[key]
        except json.JSONDecodeError as e:
            raise ValueError(f"{os.fspath(path)}: its metadata's {key} is not JSON ({e})") from None
    mean, std = read("mean", DEFAULT_MEAN), read("std", DEFAULT_STD)
    for key, values, low in (("mean", mean, 0.0), ("std", std, 0.001)):
        if not (isinstance(values, (list, tuple)) and len(values) == 3
                and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                        and low <= v <= 1 for v in values)):
            raise ValueError(f"{os.fspath(path)}: its metadata's {key} {values!r} is not three "
                             f"numbers in [{low:g}, 1]")
    stem = meta.get("stem", "cifar")
    if stem not in ("cifar", "imagenet"):
        raise ValueError(f"{os.fspath(path)}: its metadata's stem {stem!r} is neither cifar nor imagenet")
    try:
        image_size = int(meta.get("image_size", 32))
    except ValueError:
        raise ValueError(f"{os.fspath(path)}: its metadata's image_size {meta['image_size']!r} "
                         f"is not a whole number") from None
    if not 8 <= image_size <= 1024:
        raise ValueError(f"{os.fspath(path)}: its metadata's image_size {image_size} is not "
                         f"from 8 to 1024 px")
    crop_mode = meta.get("crop_mode", "squash")
    if crop_mode not in ("center", "squash"):
        raise ValueError(f"{os.fspath(path)}: its metadata's crop_mode {crop_mode!r} is neither "
                         "center nor squash")
    try:
        crop_pct = float(meta.get("crop_pct", 1.0))
    except ValueError:
        crop_pct = math.nan
    if not 0.25 <= crop_pct <= 1:  # NaN too
        raise ValueError(f"{os.fspath(path)}: its metadata's crop_pct {meta['crop_pct']!r} is not "
                         "a number from 0.25 to 1")
    classes = read("classes", None)
    if classes is not None and (not isinstance(classes, list) or not classes
                                or not all(isinstance(c, str) and c for c in classes)
                                or len(set(classes)) != len(classes)):
        raise ValueError(f"{os.fspath(path)}: its metadata's classes {classes!r} are not a list "
                         "of names, each non-empty and each once")
    return (tuple(mean), tuple(std), stem, image_size, classes, crop_mode, crop_pct)


def load(path, model=None, stem=None):
    """A model in eval mode with the file's weights (strict), and a dict with
    model, stem, mean, std, classes, dataset, image_size, crop_mode and
    crop_pct (from the metadata, else defaults; without a class list, as many
    classes as the head has)."""
    sd, meta = read_weights(path)
    if ("mean" in meta) != ("std" in meta):  # as cifar-train refuses it
        raise ValueError(f"{os.fspath(path)}: its metadata has only one of mean and std")
    mean, std, meta_stem, image_size, classes, crop_mode, crop_pct = _metadata(path, meta)
    info = {
        "model": model or meta.get("model"),
        "stem": stem or meta_stem,
        "mean": mean,
        "std": std,
        "classes": tuple(classes) if classes is not None else CLASSES,
        "dataset": meta.get("dataset", "cifar10"),
        "image_size": image_size,
        "crop_mode": crop_mode,
        "crop_pct": crop_pct,
    }
    if "classes" not in meta:  # the head says how many
        head = next((sd[k] for k in ("fc3.weight", "fc.weight", "head.weight", "_fc.weight") if k in sd), None)
        if head is not None and head.shape[0] != len(CLASSES):
            info["classes"] = tuple(f"class_{i}" for i in range(head.shape[0]))
    if info["model"] is None:
        raise ValueError(f"{os.fspath(path)} does not say which model it holds (its metadata has "
                         f"no model): name it (load(..., model='net'); export_onnx.py --model net)")
    if info["model"] == "net" and info["image_size"] != 32:
        raise ValueError(f"{os.fspath(path)}: net takes 32 px images, its metadata says "
                         f"{info['image_size']}")
    m = make_model(info["model"], len(info["classes"]), info["stem"])
    conv1 = sd.get("conv1.weight")
    if (info["model"] == "resnet18" and conv1 is not None and conv1.shape[-1] in (3, 7)
            and conv1.shape[-1] != m.conv1.weight.shape[-1]):
        other = "imagenet" if conv1.shape[-1] == 7 else "cifar"
        raise ValueError(f"{os.fspath(path)} holds a resnet18 with the {other} stem "
                         f"({conv1.shape[-1]}x{conv1.shape[-1]} conv1): name it (load(..., "
                         f"stem='{other}'); export_onnx.py --stem {other})")
    _check_values(path, m, sd)
    m.load_state_dict(sd, strict=True)
    return m.eval(), info


def _check_values(path, model, sd):
    """Refuses what cifar-train refuses (src/cifar/model/state_dict.cpp): a
    floating-point parameter or buffer given as integers or booleans, or
    holding NaN or infinity (every output would be NaN); names them all."""
    not_float, not_finite = [], []
    for name, target in model.state_dict().items():
        given = sd.get(name)
        if given is None or not target.is_floating_point():
            continue  # missing: load_state_dict names it; num_batches_tracked
        if not given.is_floating_point():
            not_float.append(f"{name} ({str(given.dtype).removeprefix('torch.')})")
        elif (bad := int((~torch.isfinite(given)).sum())) > 0:
            not_finite.append(f"{name} ({bad} of {given.numel()})")
    if not_float:
        raise ValueError(f"{os.fspath(path)}: tensors that must be floating point are not: "
                         f"{', '.join(not_float)}; the file is damaged or not a model's weights")
    if not_finite:
        raise ValueError(f"{os.fspath(path)}: tensors hold NaN or infinite values: "
                         f"{', '.join(not_finite)}; every prediction would be NaN")
