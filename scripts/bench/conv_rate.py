#!/usr/bin/env python3
"""conv_rate.py: what this CPU does with a 3x3 convolution, in float32 and bf16.

Prints ATen's CPU capability, whether bf16 is native (cpuinfo's avx512_bf16 /
amx_bf16 and oneDNN's own check, as cifar-train's --amp auto asks) and the
GFLOP/s of one 3x3 conv forward + backward (batch 64, 128 -> 128 channels,
32 x 32, channels-last, 2 threads) in float32 and under bf16 autocast: the
figure docs/benchmarks.md names each machine by. Under
ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 a fast CPU acts as an AVX2 one.

  ~/.cache/cifar-train/torch-2.11.0/bin/python scripts/bench/conv_rate.py
"""
import time

import torch


def rate(bf16, threads=2, reps=5):
    torch.set_num_threads(threads)
    x = torch.randn(64, 128, 32, 32).to(memory_format=torch.channels_last).requires_grad_()
    conv = torch.nn.Conv2d(128, 128, 3, padding=1, bias=False).to(memory_format=torch.channels_last)

    def step():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            y = conv(x)
        y.float().sum().backward()

    for _ in range(2):
        step()
    start = time.perf_counter()
    for _ in range(reps):
        step()
    seconds = (time.perf_counter() - start) / reps
    return 3 * 2 * 64 * 128 * 128 * 9 * 32 * 32 / seconds / 1e9  # forward + two backward convs


def main():
    flags = torch.cpu.get_capabilities()
    capability = torch.backends.cpu.get_cpu_capability()
    native = (capability == "AVX512" and (flags.get("avx512_bf16") or flags.get("amx_bf16"))
              and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    print(f"capability {capability}, {'native' if native else 'no native'} bf16; "
          f"3x3 conv forward + backward: float32 {rate(False):.1f} GFLOP/s, "
          f"bf16 {rate(True):.1f} GFLOP/s (2 threads)")


if __name__ == "__main__":
    main()
