// forecast.cpp: the whole run's expected time from the pace of its first steps.
#include "cifar/train/forecast.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace cifar {
namespace {
constexpr double kAfterSeconds = 30;
}  // namespace

RunForecast::RunForecast(int64_t steps_left, SlowRunHint hint, Clock::time_point start,
                         double spent_before_s)
    : steps_left_(steps_left),
      hint_(std::move(hint)),
      start_(start),
      spent_before_s_(spent_before_s) {}

std::string RunForecast::after_step(Clock::time_point now) {
  ++steps_done_;
  if (said_ || steps_done_ >= steps_left_) return {};
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < kAfterSeconds) return {};
  said_ = true;
  const double total =
      elapsed / static_cast<double>(steps_done_) * static_cast<double>(steps_left_);
  const double step = elapsed / static_cast<double>(steps_done_);
  std::string line = fmt::format(
      "expected training time: about {} for {} steps ({} a step)", format_span(total), steps_left_,
      step < 0.1 ? fmt::format("{:.1f} ms", step * 1000) : fmt::format("{:.2f} s", step));
  if (spent_before_s_ >= 1) {
    line += fmt::format(
        "; the whole run about {}, with the {} spent reading the data and "
        "setting up",
        format_span(spent_before_s_ + total), format_span(spent_before_s_));
  }
  if (hint_.after_s > 0 && total > hint_.after_s) line += "; " + hint_.text;
  return line;
}

std::string format_span(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

}  // namespace cifar
