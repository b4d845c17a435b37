// oom.h: an allocation failure becomes advice naming the batch size to lower.
//
// with_oom_advice(advice, f) runs f; when it fails for lack of memory (CUDA's
// OutOfMemoryError, or the CPU allocator's "can't allocate memory") the error
// says where, at which batch size, and what to try instead. Other errors pass
// through unchanged.
#pragma once

#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <string>

#include "cifar/core/types.h"
#include "cifar/platform/precision.h"

namespace cifar {

struct OomAdvice {
  std::string option;  // "--batch-size" or "--eval-batch-size"
  int64_t batch_size = 0;
  std::string model;
  c10::Device device{c10::kCPU};
  Precision precision = {};  // float32 on a GPU: --amp bf16 is advised too
  int64_t data_size = 0;     // samples in the split, so the advice stays within it (0: unknown)
};

// Throws the advice when `e` is an out-of-memory error; returns otherwise.
void rethrow_out_of_memory(const c10::Error& e, const OomAdvice& advice);

template <class F>
auto with_oom_advice(const OomAdvice& advice, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const c10::Error& e) {
    rethrow_out_of_memory(e, advice);
    throw;
  }
}

}  // namespace cifar
