// lr_schedule.cpp: the learning-rate schedules (see lr_schedule.h).
#include "cifar/optim/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace cifar {

std::string to_string(Schedule schedule) {
  return name_of(kScheduleNames, schedule);
}

double lr_at(const ScheduleOptions& o, int64_t step) {
  const double total = static_cast<double>(std::max<int64_t>(1, o.epochs * o.steps_per_epoch));
  const double t = static_cast<double>(step);
  double warmup = o.warmup_epochs * static_cast<double>(o.steps_per_epoch);
  if (o.schedule == Schedule::kOneCycle) {
    if (warmup <= 0) warmup = 0.3 * total;
    warmup = std::min(warmup, total);
    const double start = o.lr / 25.0;
    if (t < warmup) return start + (o.lr - start) * t / warmup;
    const double rest = std::max(1.0, total - warmup);
    return o.lr * std::max(0.0, 1.0 - (t - warmup) / rest);
  }
  if (t < warmup) return o.lr * (t + 1) / warmup;
  const double progress = std::clamp(t / total, 0.0, 1.0);
  switch (o.schedule) {
    case Schedule::kConstant:
      return o.lr;
    case Schedule::kStep:
      return o.lr * (progress >= 0.75 ? 0.01 : progress >= 0.5 ? 0.1 : 1.0);
    case Schedule::kCosine:
      return o.lr * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
    case Schedule::kLinear:
      return o.lr * (1.0 - progress);
    case Schedule::kOneCycle:
      break;
  }
  return o.lr;
}

}  // namespace cifar
