// cpu_load.cpp: /proc/stat, getrusage and /proc/cpuinfo read (see cpu_load.h).
#include "cifar/platform/cpu_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace cifar {

std::optional<CpuTimes> read_cpu_times() {
  std::ifstream stat("/proc/stat");
  std::string label;
  // cpu  user nice system idle iowait irq softirq steal (guest time is in user)
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(stat >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq) ||
      label != "cpu") {
    return std::nullopt;
  }
  if (!(stat >> steal)) steal = 0;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) != 0) return std::nullopt;
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return CpuTimes{
      .busy_seconds = (user + nice + system + irq + softirq + steal) / static_cast<double>(ticks),
      .own_seconds = seconds(self.ru_utime) + seconds(self.ru_stime),
      .at = std::chrono::steady_clock::now()};
}

std::optional<double> others_busy_cores(const CpuTimes& a, const CpuTimes& b, double min_seconds) {
  const double wall = std::chrono::duration<double>(b.at - a.at).count();
  if (wall <= 0 || wall < min_seconds) return std::nullopt;
  const double others =
      (b.busy_seconds - a.busy_seconds) - (b.own_seconds - a.own_seconds);  // in CPU seconds
  return std::max(0.0, others / wall);
}

int64_t physical_cores(int64_t hardware_threads) {
  std::ifstream info("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;
  std::string line, package;
  const auto value = [&line] { return line.substr(line.find(':') + 1); };
  while (std::getline(info, line)) {
    if (line.rfind("physical id", 0) == 0) package = value();
    if (line.rfind("core id", 0) == 0) cores.emplace(package, value());
  }
  const auto n = static_cast<int64_t>(cores.size());
  return n > 0 ? std::min(n, hardware_threads) : hardware_threads;
}

}  // namespace cifar
