"""Python side of interop_grad_scaler.sh: torch.amp.GradScaler on the steps
that cifar-grad-scaler-replay (tests/grad_scaler_replay.cpp) replays.

    python -m grad_scaler_check write IN.safetensors
    python -m grad_scaler_check compare IN.safetensors CPP_OUT.safetensors

`write` makes the steps: a linear layer's start, each step's input x and
loss weights c. Most steps overflow float16 in the backward pass only at a
high scale (|c| near 1 overflows at 65536, the initial scale); a few carry an
injected inf or NaN. `compare` runs Python's GradScaler with SGD on them, as a
Python training loop does, and checks that the C++ run skipped the same steps
and had the same scale, growth tracker, weights and bias after every step.
"""
import sys

import torch
from safetensors.torch import load_file, save_file

STEPS, BATCH, IN, OUT = 80, 6, 8, 4
META = {"lr": "0.05", "momentum": "0.9", "growth_interval": "4"}


def write(path):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(STEPS, BATCH, IN, generator=g)
    # Loss weights from 0.05 to 3: a scaled gradient above 65504 overflows in float16.
    size = torch.logspace(-1.3, 0.5, STEPS)[torch.randperm(STEPS, generator=g)]
    c = torch.randn(STEPS, BATCH, OUT, generator=g) * size.view(-1, 1, 1)
    c[11, 2, 1] = float("inf")
    c[30, 0, 3] = float("nan")
    c[31, 4, 0] = -float("inf")
    x[52, 1, 5] = float("nan")
    tensors = {"weight": torch.randn(OUT, IN, generator=g) * 0.3, "bias": torch.zeros(OUT),
               "x": x, "c": c}
    save_file(tensors, path, metadata=META)


def python_run(d):
    torch.set_num_threads(1)
    w = d["weight"].clone().requires_grad_()
    b = d["bias"].clone().requires_grad_()
    opt = torch.optim.SGD([w, b], lr=float(META["lr"]), momentum=float(META["momentum"]))
    scaler = torch.amp.GradScaler("cpu", growth_interval=int(META["growth_interval"]))
    rows = []
    for k in range(d["x"].shape[0]):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16):
            y = torch.nn.functional.linear(d["x"][k], w, b)  # (B, M) float16
            loss = (y.float() * d["c"][k]).sum()
        scaler.scale(loss).backward()
        scaler.step(opt)
        skipped = sum(v.item() for v in scaler._found_inf_per_device(opt).values()) > 0
        scaler.update()
        rows.append((scaler.get_scale(), scaler._get_growth_tracker(), int(skipped),
                     w.detach().clone(), b.detach().clone()))
    return rows


def compare(in_path, cpp_path):
    d = load_file(in_path)
    cpp = load_file(cpp_path)
    rows = python_run(d)
    scales = [r[0] for r in rows]
    skipped = [r[2] for r in rows]
    problems = []
    for k, (scale, tracker, skip, w, b) in enumerate(rows):
        got = (cpp["scale"][k].item(), cpp["growth_tracker"][k].item(), cpp["skipped"][k].item())
        if got != (scale, tracker, skip):
            problems.append(f"step {k}: C++ scale, tracker, skipped {got}, Python {(scale, tracker, skip)}")
        if not (torch.equal(cpp["weight"][k], w) and torch.equal(cpp["bias"][k], b)):
            diff = max((cpp["weight"][k] - w).abs().max().item(), (cpp["bias"][k] - b).abs().max().item())
            problems.append(f"step {k}: weights differ from Python's by up to {diff:g}")
    grown = sum(1 for a, b in zip(scales, scales[1:]) if b > a)
    print(f"{len(rows)} steps: {sum(skipped)} skipped {[k for k, s in enumerate(skipped) if s]}, "
          f"scale grew {grown} times, scales {sorted(set(scales))}")
    # The sequence must exercise what it is meant to: overflow skips beside the injected ones, and growth.
    if sum(skipped) < 8 or grown < 3:
        problems.append(f"the sequence is too tame: {sum(skipped)} skips, {grown} growths")
    for k in (11, 30, 31, 52):
        if not skipped[k]:
            problems.append(f"step {k} holds an injected inf/NaN but Python did not skip it")
    if problems:
        print("\n".join(problems[:20]), file=sys.stderr)
        return 1
    print("C++ and Python agree on every step: skips, scale, growth tracker, weights and bias")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
        sys.exit(0)
    sys.exit(compare(sys.argv[2], sys.argv[3]))
