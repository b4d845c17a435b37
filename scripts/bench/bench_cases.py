"""bench_cases.py: the cases run_bench.py times, and what one run of a case measured.

A Case is a model, device, batch size and learning rate with its Variants
(the rows of the table: C++ or Python, with extra flags, thread counts and
busy processes beside them). The busy-machine cases (issue 12) run
cifar-train's default CPU plan idle and beside BUSY spinning processes.
"""

import dataclasses


@dataclasses.dataclass
class Variant:
    """One row of the table: an implementation and its extra flags."""

    label: str  # "{threads}" in it is filled with --threads
    impl: str  # "cpp" or "python"
    flags: list
    threads: object = None  # None: --threads; 0: none given (the program's own choice); N: N
    busy: int = 0  # processes spinning beside the run


@dataclasses.dataclass
class Case:
    name: str
    model: str
    device: str
    batch_size: int
    lr: float
    epochs: int
    variants: list
    momentum: float = 0.9
    amp: str = "off"
    channels_last: bool = False
    abba: bool = False  # reverse the variants' order every other round

    @property
    def busy(self):
        return any(variant.busy for variant in self.variants)

    @property
    def on_gpu(self):
        return self.device.startswith("cuda")


CASES = [
    Case("tutorial-cpu", "net", "cpu", batch_size=4, lr=0.001, epochs=1, variants=[
        Variant("C++", "cpp", []),
        Variant("Python, tutorial DataLoader", "python", ["--loader", "tutorial"]),
        Variant("Python, tensor loader", "python", ["--loader", "tensor"]),
    ]),
    Case("net-b256-cpu", "net", "cpu", batch_size=256, lr=0.05, epochs=1, variants=[
        Variant("C++", "cpp", []),
        Variant("Python, tensor loader", "python", ["--loader", "tensor"]),
    ]),
    # The same with channels-last (NHWC) images and weights on both sides.
    Case("net-b256-cl-cpu", "net", "cpu", batch_size=256, lr=0.05, epochs=1, channels_last=True,
         variants=[
        Variant("C++", "cpp", []),
        Variant("Python, tensor loader", "python", ["--loader", "tensor"]),
    ]),
    # Two epochs: the last one, which is measured, runs warm.
    Case("resnet18-b512-bf16-gpu", "resnet18", "cuda", batch_size=512, lr=0.1, epochs=2,
         amp="bf16", channels_last=True, variants=[
             Variant("C++", "cpp", []),
             Variant("Python, tensor loader", "python", ["--loader", "tensor"]),
         ]),
    Case("net-b4-gpu", "net", "cuda", batch_size=4, lr=0.001, epochs=1, variants=[
        Variant("C++ --cuda-graph", "cpp", ["--cuda-graph"]),
        Variant("C++ eager", "cpp", []),
        Variant("Python eager, tensor loader", "python", ["--loader", "tensor"]),
    ]),
]
TENSOR = ["--loader", "tensor"]
BUSY = 1  # processes spinning beside the busy runs
KEPT_TARGET = 0.70  # C++ default busy / idle, at batch 4 and at batch 256


def busy_case(name, batch_size, lr):
    """Issue 12: cifar-train's default idle and beside BUSY spinning processes, Python busy."""
    return Case(name, "net", "cpu", batch_size=batch_size, lr=lr, epochs=1, abba=True, variants=[
        Variant("C++ default, idle", "cpp", [], threads=0),
        Variant(f"C++ default, {BUSY} busy", "cpp", [], threads=0, busy=BUSY),
        Variant(f"Python 1 thread, {BUSY} busy", "python", TENSOR, threads=1, busy=BUSY),
        Variant(f"Python {{threads}} threads, {BUSY} busy", "python", TENSOR, busy=BUSY),
    ])


CASES += [busy_case("busy-b4-cpu", 4, 0.001), busy_case("busy-b256-cpu", 256, 0.05)]
CASES_BY_NAME = {case.name: case for case in CASES}


@dataclasses.dataclass
class Result:
    images_per_second: float
    epoch_seconds: float
    test_accuracy: float
    peak_memory_bytes: int
    threads: int = 0  # as cifar-train's log says, when it says (not under -q)
    round: int = 0
