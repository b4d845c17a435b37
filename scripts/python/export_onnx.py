#!/usr/bin/env python3
"""Export cifar-train weights to ONNX (LibTorch C++ cannot write ONNX).

    python scripts/python/export_onnx.py net.safetensors net.onnx
    python scripts/python/export_onnx.py net_state_dict.pt net.onnx --model net

The graph takes "images" (N, 3, S, S) float, S the side the model was trained
at (32 unless cifar-train's --image-size said otherwise), normalised as in
training (the mean, std, image_size, crop_mode and crop_pct are stored in the
ONNX metadata), and
returns "logits" (N, classes).
The file is checked with onnx.checker when the onnx package is installed.
"""
import argparse
import json
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cifar_models  # noqa: E402


def check_out(parser, weights, out):
    """Refuses an output that would destroy something: the weights themselves,
    a name without .onnx, or an existing file that is no ONNX model."""
    if not out.lower().endswith(".onnx"):
        parser.error(f"{out}: the output is an ONNX file; give it the .onnx ending (net.onnx)")
    if os.path.isdir(out):
        parser.error(f"{out} is a folder; name the .onnx file to write")
    if not os.path.lexists(out):
        return
    if os.path.exists(weights) and os.path.samefile(weights, out):
        parser.error(f"{out} is the weights file being exported; choose another output")
    try:
        import onnx
        onnx.load(out, load_external_data=False)
    except ImportError:
        return  # nothing to check it with: replaced, as torch.onnx.export would
    except Exception:
        parser.error(f"{out} exists and is not an ONNX model; remove it, or choose another output")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("weights", help=".safetensors, .pt or .pth from cifar-export")
    p.add_argument("out", help="the .onnx file to write")
    p.add_argument("--model", choices=cifar_models.MODEL_NAMES, help="default: the file's metadata")
    p.add_argument("--stem", choices=["cifar", "imagenet"])
    p.add_argument("--opset", type=int, default=18)
    args = p.parse_args()
    check_out(p, args.weights, args.out)

    try:
        model, info = cifar_models.load(args.weights, model=args.model, stem=args.stem)
    except (ValueError, OSError) as e:  # cifar_models' own refusals, a missing file
        p.error(str(e))
    except Exception as e:  # not weights, or not this model's: said, not a traceback
        # In one line, without colour escapes: load_state_dict's error lists
        # the missing, unexpected and misshapen names on lines of their own.
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
        said = "; ".join(line.strip() for line in text.splitlines() if line.strip())
        said = said if len(said) <= 600 else said[:600] + " ..."
        p.error(f"{args.weights} does not load as {args.model or 'the model its metadata names'} "
                f"({type(e).__name__}: {said}): give weights of that model (cifar-export's, or "
                f"torch.save(model.state_dict())), or the --model they are")
    side = info["image_size"]
    example = torch.zeros(2, 3, side, side)
    torch.onnx.export(model, (example,), args.out, input_names=["images"],
                      output_names=["logits"], opset_version=args.opset,
                      dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}})
    try:
        import onnx
    except ImportError:
        print(f"wrote {args.out} (onnx not installed: not checked)")
        return 0
    m = onnx.load(args.out)
    for key in ("model", "mean", "std", "classes", "image_size", "crop_mode", "crop_pct"):
        entry = m.metadata_props.add()
        entry.key, entry.value = key, json.dumps(info[key]) if key not in ("model", "crop_mode") else info[key]
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, args.out)
    print(f"wrote {args.out} ({info['model']}, checked with onnx.checker)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
