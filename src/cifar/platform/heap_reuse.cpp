// heap_reuse.cpp: glibc's mmap and trim thresholds, raised for a scope.
#include "cifar/platform/heap_reuse.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cifar {
namespace {
#if defined(__GLIBC__)
constexpr int kDefaultThreshold = 128 * 1024;  // glibc's initial mmap and trim thresholds
constexpr int kLargeThreshold = 1 << 30;       // 1 GiB: every activation of a batch-2000 step
#endif
}  // namespace

HeapReuseGuard::HeapReuseGuard() {
#if defined(__GLIBC__)
  active_ = mallopt(M_MMAP_THRESHOLD, kLargeThreshold) == 1 &&
            mallopt(M_TRIM_THRESHOLD, kLargeThreshold) == 1;
#endif
}

HeapReuseGuard::~HeapReuseGuard() {
#if defined(__GLIBC__)
  if (!active_) return;
  mallopt(M_MMAP_THRESHOLD, kDefaultThreshold);
  mallopt(M_TRIM_THRESHOLD, kDefaultThreshold);
  malloc_trim(0);
#endif
}

}  // namespace cifar
