// test_precision.cpp: --amp resolved from what the device runs natively.
#include <catch2/catch.hpp>

#include <string>

#include "cifar/platform/precision.h"

using namespace cifar;

namespace {

const c10::Device kCpu(c10::kCPU);
const c10::Device kCuda(c10::kCUDA, 0);

DeviceNumerics numerics(bool bf16, bool fp16 = false) {
  return {.capability = bf16 ? "AVX512" : "AVX2",
          .native_bf16 = bf16,
          .native_fp16 = fp16,
          .bf16_why = bf16 ? "the CPU has AVX512-BF16" : "the CPU has neither"};
}

}  // namespace

TEST_CASE("amp auto: bf16 only where the device runs it natively", "[precision]") {
  const Precision fast = resolve_precision(AmpMode::kAuto, kCpu, numerics(true));
  CHECK(fast.amp == AmpMode::kBf16);
  CHECK(fast.matmul_dtype == c10::kBFloat16);
  CHECK(fast.why.find("bf16 autocast (--amp auto: the CPU has AVX512-BF16") == 0);
  CHECK(fast.warning.empty());

  const Precision avx2 = resolve_precision(AmpMode::kAuto, kCpu, numerics(false));
  CHECK(avx2.amp == AmpMode::kOff);
  CHECK(avx2.matmul_dtype == c10::kFloat);  // Muon's Newton-Schulz in float32 too
  CHECK(avx2.why == "float32 (--amp auto: the CPU has neither)");
  CHECK(avx2.warning.empty());
}

TEST_CASE("amp auto keeps float32 for a model that is slower in bf16 on a CPU", "[precision]") {
  const Precision p = resolve_precision(AmpMode::kAuto, kCpu, numerics(true), true);
  CHECK(p.amp == AmpMode::kOff);
  CHECK(p.matmul_dtype == c10::kBFloat16);
  CHECK(p.why.find("small layers") != std::string::npos);
  // On a GPU the same model takes bf16.
  CHECK(resolve_precision(AmpMode::kAuto, kCuda, numerics(true, true), true).amp == AmpMode::kBf16);
}

TEST_CASE("amp auto on GPUs: bf16 from 8.0, fp16 with loss scaling before", "[precision]") {
  CHECK(resolve_precision(AmpMode::kAuto, kCuda, numerics(true, true)).amp == AmpMode::kBf16);
  const Precision volta = resolve_precision(AmpMode::kAuto, kCuda, numerics(false, true));
  CHECK(volta.amp == AmpMode::kFp16);
  CHECK(volta.loss_scaling);  // what the session's GradScaler follows
  CHECK(volta.matmul_dtype == c10::kFloat);
  CHECK(resolve_precision(AmpMode::kAuto, kCuda, numerics(false, false)).amp == AmpMode::kOff);
  // A --cuda-graph step cannot skip steps on the host: no loss scaling, so float32.
  const Precision graphed = resolve_precision(AmpMode::kAuto, kCuda, numerics(false, true), false,
                                              /*graphed=*/true);
  CHECK(graphed.amp == AmpMode::kOff);
  CHECK(graphed.why.find("--cuda-graph") != std::string::npos);
  CHECK(resolve_precision(AmpMode::kAuto, kCuda, numerics(true, true), false, true).amp ==
        AmpMode::kBf16);
}

TEST_CASE("an explicit --amp runs as asked, warning where the device emulates it", "[precision]") {
  const Precision slow = resolve_precision(AmpMode::kBf16, kCpu, numerics(false));
  CHECK(slow.amp == AmpMode::kBf16);
  CHECK(slow.matmul_dtype == c10::kFloat);
  CHECK(slow.warning.find("--amp bf16 on cpu (AVX2)") == 0);
  CHECK(slow.warning.find("--amp auto or --amp off") != std::string::npos);
  CHECK(resolve_precision(AmpMode::kBf16, kCpu, numerics(true)).warning.empty());
  CHECK(resolve_precision(AmpMode::kBf16, kCpu, numerics(true), true).warning.find("small") !=
        std::string::npos);
  CHECK(resolve_precision(AmpMode::kFp16, kCpu, numerics(true)).warning.find("--amp fp16") == 0);
  CHECK(resolve_precision(AmpMode::kFp16, kCpu, numerics(true)).loss_scaling);
  CHECK_FALSE(resolve_precision(AmpMode::kBf16, kCpu, numerics(true)).loss_scaling);
  const Precision off = resolve_precision(AmpMode::kOff, kCpu, numerics(true));
  CHECK(off.amp == AmpMode::kOff);
  CHECK(off.why == "float32 (--amp off)");
  CHECK(off.matmul_dtype == c10::kBFloat16);  // the reference's Newton-Schulz where it is fast
}

TEST_CASE("this CPU's numerics: ATen's capability, bf16 native only at AVX512", "[precision]") {
  const DeviceNumerics n = device_numerics(kCpu);
  CHECK((n.capability == "AVX512" || n.capability == "AVX2" || n.capability == "DEFAULT"));
  if (n.capability != "AVX512") CHECK_FALSE(n.native_bf16);
  CHECK_FALSE(n.native_fp16);
  CHECK_FALSE(n.bf16_why.empty());
}
