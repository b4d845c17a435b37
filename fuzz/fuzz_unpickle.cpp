// libFuzzer target: the restricted unpickler for torch.save's data.pkl on
// arbitrary bytes; storages are served as zero tensors of the size asked
// (capped), under limits like a weights file's but smaller (1 MiB of tensors).
// Any exception other than std::runtime_error, a crash, or an allocation past
// the limits (libFuzzer's -malloc_limit_mb) is a bug.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "cifar/formats/unpickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto load = [](const std::string&, torch::ScalarType dtype, int64_t numel) {
    if (numel > 4096) throw std::runtime_error("storage too large for the fuzzer");
    return torch::zeros({numel}, torch::TensorOptions().dtype(dtype));
  };
  static const cifar::pickle::Limits limits{.max_bytes = uint64_t{1} << 20, .why = "the fuzzer's"};
  try {
    cifar::pickle::unpickle(std::string_view(reinterpret_cast<const char*>(data), size), load,
                            limits);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
