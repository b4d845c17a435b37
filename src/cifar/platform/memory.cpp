// memory.cpp: /proc/meminfo's MemAvailable and glibc's mallinfo2 (see memory.h).
#include "cifar/platform/memory.h"

#include <fmt/format.h>
#include <malloc.h>

#include <fstream>
#include <sstream>

namespace cifar {

int64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

int64_t heap_in_use_bytes() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 info = ::mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
#else
  return 0;
#endif
}

std::string memory_size(int64_t bytes) {
  constexpr double kMiB = 1 << 20;
  constexpr double kGiB = 1 << 30;
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", bytes / kGiB);
  return fmt::format("{:.0f} MiB", bytes / kMiB);
}

}  // namespace cifar
