// oom.cpp: recognising an out-of-memory error and phrasing the advice.
#include "cifar/platform/oom.h"

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
  // Halve the batch that really ran: a batch never holds more than the data.
  const bool over_data = a.data_size > 0 && a.batch_size > a.data_size;
  const int64_t ran = over_data ? a.data_size : a.batch_size;
  const int64_t smaller = std::max<int64_t>(1, ran / 2);
  std::string extra;
  if (a.precision.amp == AmpMode::kOff && a.device.is_cuda()) extra = " or --amp bf16";
  if (over_data) {
    extra +=
        fmt::format(" (the data has {} samples, so no batch was larger than that)", a.data_size);
  }
  throw std::runtime_error(fmt::format("out of memory on {} at {} {} with model {}: try {} {}{}",
                                       a.device.str(), a.option, a.batch_size, a.model, a.option,
                                       smaller, extra));
}

}  // namespace cifar
