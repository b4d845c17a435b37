// heap_reuse.h: keep large freed blocks in the heap while training on the CPU.
//
// glibc's malloc maps every block above its mmap threshold (128 KiB, rising
// at most to 32 MiB) with mmap and unmaps it on free. A training step at
// batch 2000 allocates and frees activations of hundreds of MB, so every
// step maps them afresh and the kernel zeroes each page on first touch: in
// the airbench94 recipe that was a large share of the CPU time (system time;
// docs/benchmarks.md). While a HeapReuseGuard lives, the mmap and trim
// thresholds are raised so those blocks come from the heap and go back to
// it. Its destructor restores glibc's default thresholds (128 KiB; glibc's
// own dynamic raising of the threshold stays off afterwards, which only
// means more mmap calls for later large blocks) and trims the heap, so the
// memory returns to the system when the training is done.
#pragma once

namespace cifar {

class HeapReuseGuard {
 public:
  HeapReuseGuard();
  ~HeapReuseGuard();
  HeapReuseGuard(const HeapReuseGuard&) = delete;
  HeapReuseGuard& operator=(const HeapReuseGuard&) = delete;

  // Whether glibc took the new thresholds (false on another C library).
  bool active() const { return active_; }

 private:
  bool active_ = false;
};

}  // namespace cifar
