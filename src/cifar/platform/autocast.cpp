// autocast.cpp: save, set and restore LibTorch's autocast state.
#include "cifar/platform/autocast.h"

namespace cifar {

AutocastScope::AutocastScope(const c10::Device& device, const Precision& precision, bool cache)
    : active_(precision.amp != AmpMode::kOff), type_(device.type()) {
  if (!active_) return;
  was_enabled_ = at::autocast::is_autocast_enabled(type_);
  was_caching_ = at::autocast::is_autocast_cache_enabled();
  old_dtype_ = at::autocast::get_autocast_dtype(type_);
  at::autocast::set_autocast_enabled(type_, true);
  at::autocast::set_autocast_dtype(type_,
                                   precision.amp == AmpMode::kFp16 ? at::kHalf : at::kBFloat16);
  at::autocast::set_autocast_cache_enabled(cache);
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  at::autocast::set_autocast_enabled(type_, was_enabled_);
  at::autocast::set_autocast_dtype(type_, old_dtype_);
  at::autocast::clear_cache();
  at::autocast::set_autocast_cache_enabled(was_caching_);
}

}  // namespace cifar
