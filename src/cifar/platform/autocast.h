// autocast.h: mixed precision for a forward pass, as Python's torch.autocast.
//
// While an AutocastScope of a Precision that runs bf16 (fp16) lives, matrix
// products and convolutions on its device type run in bfloat16 (float16; the
// loss then needs scaling, see optim/grad_scaler.h); the previous autocast
// state of the process is restored when it goes, also on an exception. The
// run's parts hold the resolved Precision whole (precision.h) and hand it
// here: this is where --amp's value is used.
#pragma once

#include <ATen/autocast_mode.h>
#include <c10/core/Device.h>

#include "cifar/platform/precision.h"

namespace cifar {

class AutocastScope {
 public:
  // `cache`: keep casted weights for the scope (off while capturing a CUDA graph).
  AutocastScope(const c10::Device& device, const Precision& precision, bool cache = true);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_;
  at::DeviceType type_;
  bool was_enabled_ = false;
  bool was_caching_ = true;
  at::ScalarType old_dtype_ = at::kFloat;
};

}  // namespace cifar
