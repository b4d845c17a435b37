// progress_bar.cpp: the line's layout, and the redrawing on stderr.
#include "cifar/report/progress_bar.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cifar {
namespace {

// Columns of a UTF-8 string whose characters are all one column wide.
int columns(const std::string& s) {
  return static_cast<int>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<uint8_t>(c) & 0xC0) != 0x80; }));
}

std::string bar_string(double frac, int width, bool ascii) {
  // Eighths of a cell, as tqdm draws them.
  static constexpr const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  frac = std::clamp(frac, 0.0, 1.0);
  const int eighths = static_cast<int>(frac * width * 8);
  const int full = eighths / 8;
  std::string out;
  for (int i = 0; i < full; ++i) out += ascii ? "#" : "█";
  int used = full;
  if (full < width && eighths % 8 != 0 && !ascii) {
    out += kEighths[eighths % 8];
    ++used;
  }
  out.append(static_cast<size_t>(width - used), ascii ? '.' : ' ');
  return out;
}

double remaining_seconds(const ProgressState& s) {
  if (s.total > 0 && s.step >= s.total) return 0;
  const int64_t done = s.step - s.initial;
  if (s.total <= 0 || done <= 0 || s.elapsed_seconds <= 0) return -1;
  return s.elapsed_seconds * static_cast<double>(s.total - s.step) / static_cast<double>(done);
}

std::string rate_string(const ProgressState& s) {
  if (!(s.rate > 0) || !std::isfinite(s.rate)) return fmt::format("? {}/s", s.unit);
  return s.rate < 10 ? fmt::format("{:.2f} {}/s", s.rate, s.unit)
                     : fmt::format("{:.0f} {}/s", s.rate, s.unit);
}

// The fields, in the order they are dropped when the line is too wide.
enum Field { kBar, kElapsed, kRate, kAccuracy, kLoss, kSteps, kRemaining, kPercent, kFieldCount };

std::string layout(const ProgressState& s, const bool (&on)[kFieldCount], int bar_width,
                   bool ascii) {
  const bool known = s.total > 0;
  const double frac = known ? static_cast<double>(s.step) / static_cast<double>(s.total) : 0;
  std::string line = s.label;
  if (known && on[kPercent]) line += fmt::format(" {:3.0f}%", 100 * std::clamp(frac, 0.0, 1.0));
  if (known && on[kBar]) line += fmt::format("|{}|", bar_string(frac, bar_width, ascii));
  if (on[kSteps])
    line += known ? fmt::format(" {}/{}", s.step, s.total) : fmt::format(" {}", s.step);
  std::vector<std::string> inside;
  const double left = remaining_seconds(s);
  if (on[kElapsed] && on[kRemaining] && known) {
    inside.push_back(format_clock(s.elapsed_seconds) + "<" + format_clock(left));
  } else if (on[kElapsed]) {
    inside.push_back(format_clock(s.elapsed_seconds));
  } else if (on[kRemaining] && known) {
    inside.push_back("ETA " + format_clock(left));
  }
  if (on[kRate]) inside.push_back(rate_string(s));
  if (on[kLoss] && s.loss) inside.push_back(fmt::format("loss {:.4f}", *s.loss));
  if (on[kAccuracy] && s.accuracy) inside.push_back(fmt::format("acc {:.1f}%", 100 * *s.accuracy));
  if (!inside.empty()) line += fmt::format(" [{}]", fmt::join(inside, ", "));
  return line;
}

}  // namespace

std::string format_clock(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const auto t = static_cast<int64_t>(seconds + 0.5);
  if (t >= 3600) return fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
  return fmt::format("{:02}:{:02}", t / 60, t % 60);
}

std::string format_progress_line(const ProgressState& s, int width, bool ascii) {
  const int max = std::max(width, 1) - 1;  // the last column would make some terminals wrap
  constexpr int kMinBar = 10, kMaxBar = 40;
  bool on[kFieldCount];
  std::fill(std::begin(on), std::end(on), true);
  // The bar takes what the other fields leave, up to kMaxBar.
  on[kBar] = false;
  const int rest = columns(layout(s, on, 0, ascii));
  const int bar = std::min(kMaxBar, max - rest - 2);
  on[kBar] = s.total > 0 && bar >= kMinBar;
  std::string line = layout(s, on, bar, ascii);
  for (int f = kElapsed; columns(line) > max && f < kFieldCount; ++f) {
    on[f] = false;
    line = layout(s, on, bar, ascii);
  }
  if (columns(line) > max) line.resize(static_cast<size_t>(max));  // the label alone; no bar left
  return line;
}

std::string format_progress_plain(const ProgressState& s) {
  std::string line = s.label;
  if (s.total > 0) {
    line += fmt::format(" {} {}/{} ({:.0f}%):", s.counted, s.step, s.total,
                        100.0 * static_cast<double>(s.step) / static_cast<double>(s.total));
  } else {
    line += fmt::format(" {} {}:", s.counted, s.step);
  }
  if (s.loss) line += fmt::format(" loss {:.4f},", *s.loss);
  if (s.accuracy) line += fmt::format(" acc {:.2f}%,", 100 * *s.accuracy);
  line += fmt::format(" {}", rate_string(s));
  if (s.total > 0) line += fmt::format(", ETA {}", format_clock(remaining_seconds(s)));
  return line;
}

int terminal_width(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

ProgressBar::ProgressBar(std::string label, int64_t total, ProgressBarOptions options)
    : options_(std::move(options)),
      interactive_(options_.interactive.value_or(::isatty(STDERR_FILENO) != 0)),
      start_(Clock::now()),
      last_shown_(start_) {
  state_.label = std::move(label);
  state_.total = total;
  state_.initial = options_.initial;
  state_.step = options_.initial;
  state_.unit = options_.unit;
  state_.counted = options_.counted;
  if (interactive_) screen_.emplace();
}

ProgressBar::~ProgressBar() {
  finish();
}

double ProgressBar::seconds_since(Clock::time_point t) const {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool ProgressBar::due() const {
  if (seconds_since(start_) < options_.delay_seconds) return false;
  const double interval = interactive_ ? options_.refresh_seconds : options_.log_interval_seconds;
  return (interactive_ && !shown_once_) || seconds_since(last_shown_) >= interval;
}

void ProgressBar::update(int64_t step, const ProgressMetrics& m) {
  const bool last = interactive_ && state_.total > 0 && step >= state_.total &&
                    seconds_since(start_) >= options_.delay_seconds;
  if (!due() && !last) return;
  state_.step = step;
  state_.elapsed_seconds = seconds_since(start_);
  state_.rate = m.rate > 0
                    ? m.rate
                    : (state_.elapsed_seconds > 0
                           ? static_cast<double>(step - state_.initial) / state_.elapsed_seconds
                           : 0);
  state_.loss = m.loss;
  state_.accuracy = m.accuracy;
  last_shown_ = Clock::now();
  shown_once_ = true;
  if (!interactive_) {
    spdlog::info("{}", format_progress_plain(state_));
    return;
  }
  if (screen_)
    screen_->draw(format_progress_line(state_, terminal_width(STDERR_FILENO), options_.ascii));
}

void ProgressBar::finish() {
  if (screen_) screen_->release();
}

}  // namespace cifar
