// oom.cpp: recognising an out-of-memory error and phrasing the advice.
#include "cifar/oom.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace cifar {

void rethrow_out_of_memory(const c10::Error& e, const OomAdvice& a) {
  const bool oom =
      dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr ||
      std::string_view(e.what()).find("can't allocate memory") != std::string_view::npos;
  if (!oom) return;
  int64_t smaller = std::max<int64_t>(1, a.batch_size / 2);
  if (a.data_size > 0) smaller = std::min(smaller, a.data_size);
  std::string extra;
  if (a.amp == AmpMode::kOff && a.device.is_cuda()) extra = " or --amp bf16";
  if (a.data_size > 0 && a.batch_size > a.data_size) {
    extra += fmt::format(" (the data has {} samples: no batch is larger than that)", a.data_size);
  }
  throw std::runtime_error(fmt::format("out of memory on {} at {} {} with model {}: try {} {}{}",
                                       a.device.str(), a.option, a.batch_size, a.model, a.option,
                                       smaller, extra));
}

}  // namespace cifar
