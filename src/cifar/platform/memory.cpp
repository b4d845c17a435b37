// memory.cpp: /proc/meminfo's MemAvailable and glibc's mallinfo2 (see memory.h).
#include "cifar/platform/memory.h"

#include <fmt/format.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

namespace cifar {

namespace {

// The number after `key` in a /proc file of "Key: value" lines, or -1.
int64_t proc_field(const char* file, std::string_view key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    int64_t value = 0;
    if (fields >> name >> value && name == key) return value;
  }
  return -1;
}

// A cgroup v2 file of this process's group (a container's memory cap), as a
// number; -1 when absent or "max".
int64_t cgroup_value(const std::string& name) {
  std::ifstream groups("/proc/self/cgroup");
  std::string line;
  while (std::getline(groups, line)) {
    if (!line.starts_with("0::")) continue;
    std::ifstream file("/sys/fs/cgroup" + line.substr(3) + "/" + name);
    int64_t value = -1;
    if (file >> value) return value;
  }
  return -1;
}

}  // namespace

int64_t available_memory_bytes() {
  const int64_t kib = proc_field("/proc/meminfo", "MemAvailable:");
  int64_t free = kib < 0 ? 0 : kib * 1024;
  const auto cap = [&free](int64_t room) {
    if (room >= 0) free = free == 0 ? room : std::min(free, room);
  };
  if (const int64_t max = cgroup_value("memory.max"); max >= 0) {
    cap(std::max<int64_t>(0, max - std::max<int64_t>(0, cgroup_value("memory.current"))));
  }
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {  // ulimit -v
    const int64_t used = std::max<int64_t>(0, proc_field("/proc/self/status", "VmSize:")) * 1024;
    cap(std::max<int64_t>(0, static_cast<int64_t>(limit.rlim_cur) - used));
  }
  return free;
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
  const auto size = static_cast<double>(bytes);
  if (size >= kGiB) return fmt::format("{:.1f} GiB", size / kGiB);
  return fmt::format("{:.0f} MiB", size / kMiB);
}

}  // namespace cifar
