// test_machine.cpp: the machine and the precision resolved once for every
// tool (resolve/machine.h), and the refusals that live there.
#include <catch2/catch.hpp>

#include "cifar/core/errors.h"
#include "cifar/resolve/machine.h"

using namespace cifar;

TEST_CASE("resolve_machine: the device asked for, the threads given", "[machine]") {
  const Machine m = resolve_machine(
      {.device = *parse_device("cpu"),
       .threads = 1,
       .env = {.hardware_threads = 2, .omp_num_threads = 0, .aten_cpu_capability = ""},
       .batch_size = 16});
  CHECK(m.device.is_cpu());
  CHECK(m.cpu.threads == 1);
  CHECK_FALSE(m.numerics.capability.empty());
  // $OMP_NUM_THREADS when --threads is not given, as the app read it.
  CHECK(resolve_machine(
            {.device = *parse_device("cpu"),
             .env = {.hardware_threads = 2, .omp_num_threads = 2, .aten_cpu_capability = ""}})
            .cpu.threads == 2);
}

TEST_CASE("resolve_amp: fp16 scales its loss, and a captured step cannot", "[machine]") {
  const Machine cpu;
  const Precision fp16 = resolve_amp(AmpMode::kFp16, cpu, "net", /*graphed=*/false, true);
  CHECK(fp16.amp == AmpMode::kFp16);
  CHECK(fp16.loss_scaling);
  // Refused here, with the way out (it was config/'s check of the two options).
  CHECK_THROWS_AS(resolve_amp(AmpMode::kFp16, cpu, "net", /*graphed=*/true, true), UsageError);
  CHECK_THROWS_WITH(resolve_amp(AmpMode::kFp16, cpu, "net", true, true),
                    Catch::Contains("--amp fp16 cannot be used with --cuda-graph") &&
                        Catch::Contains("use --amp bf16 with --cuda-graph"));
  CHECK_NOTHROW(resolve_amp(AmpMode::kOff, cpu, "net", true, true));
}

TEST_CASE("cpu_training_onednn: oneDNN but for a small-layered model at batch <= 8 in float32",
          "[machine]") {
  const Precision float32;  // --amp off
  Precision bf16;
  bf16.amp = AmpMode::kBf16;
  const torch::Device cpu(torch::kCPU);
  CHECK_FALSE(cpu_training_onednn("net", 4, float32, cpu, /*quiet=*/true));
  CHECK_FALSE(cpu_training_onednn("net", 8, float32, cpu, true));
  CHECK(cpu_training_onednn("net", 9, float32, cpu, true));
  CHECK(cpu_training_onednn("net", 4, bf16, cpu, true));
  // The others train through oneDNN at any batch (resnet18 at batch 8 was
  // 1.5x slower in float32 without it, 37x in bf16: docs/benchmarks.md).
  for (const char* model : {"resnet18", "airbench94", "efficientnet_lite0"}) {
    CHECK(cpu_training_onednn(model, 4, float32, cpu, true));
    CHECK(cpu_training_onednn(model, 8, bf16, cpu, true));
  }
  CHECK(cpu_training_onednn("net", 4, float32, torch::Device(torch::kCUDA, 0), true));
}
