// progress_bar.h: a tqdm-like progress bar for training, evaluation and the
// data load.
//
//   epoch 1/2  42%|█████████▋             | 5250/12500 [00:12<00:17, 2840 img/s, loss 1.6925,
//   acc 39.3%]
//
// format_progress_line() is pure (state and width in, one line out) and never
// returns more than width - 1 columns: on a narrow terminal it drops the bar
// first, then the least useful fields, instead of wrapping. ProgressBar draws
// it on stderr when stderr is a terminal, at most every `refresh_seconds`, and
// while it is up log lines are printed above it (progress_screen.h: the
// logger gets its own sinks back when the last bar goes, whatever the order
// bars finish in). Without a terminal it logs one plain line every
// `log_interval_seconds`.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "cifar/report/progress_screen.h"

namespace cifar {

struct ProgressState {
  std::string label;  // "epoch 1/2", "evaluating"
  int64_t step = 0;   // done so far (steps or items)
  int64_t total = 0;  // 0: unknown
  int64_t initial =
      0;  // where this run started counting (a resumed epoch): rates and ETA use step - initial
  double elapsed_seconds = 0;
  double rate = 0;               // `unit`s per second; 0: unknown
  std::string unit = "img";      // "img" gives "2840 img/s"
  std::string counted = "step";  // what `step` counts, for the plain line: "step", "image"
  std::optional<double> loss;
  std::optional<double> accuracy;  // in [0, 1]
};

// One line of at most width - 1 columns (UTF-8 block characters in the bar
// unless ascii). Widths below 1 are treated as 1.
std::string format_progress_line(const ProgressState& s, int width, bool ascii = false);
// The line logged without a terminal:
// "epoch 1/2 step 5250/12500 (42%): loss 1.6925, acc 39.30%, 2840 img/s, ETA 0:17"
// ("evaluating image 4000/10000 ..." when it counts images).
std::string format_progress_plain(const ProgressState& s);
// "mm:ss", or "h:mm:ss" from an hour on; "?" for a negative or non-finite value.
std::string format_clock(double seconds);
// Columns of the terminal on fd (ioctl TIOCGWINSZ), else 80.
int terminal_width(int fd);

struct ProgressBarOptions {
  // Whether to draw on stderr (the apps decide: app/cli.h's
  // stderr_draws_bars); unset: whether stderr is a terminal.
  std::optional<bool> interactive;
  double refresh_seconds = 0.2;      // redraw interval on a terminal
  double log_interval_seconds = 10;  // plain-line interval otherwise
  double delay_seconds = 0;          // show nothing before (for loads and evaluations)
  std::string unit = "img";
  std::string counted = "step";  // what the count counts ("image" for an evaluation)
  int64_t initial = 0;           // the first step (resuming mid-epoch)
  bool ascii = false;            // '#' instead of UTF-8 blocks
};

struct ProgressMetrics {
  double rate = 0;  // units per second; 0: computed as (step - initial) / elapsed
  std::optional<double> loss;
  std::optional<double> accuracy;  // in [0, 1]
};

class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total, ProgressBarOptions options = {});
  ~ProgressBar();  // finish()
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Whether update() would show something now: fetch the loss (a GPU sync)
  // only when it is.
  bool due() const;
  // Shows the state if due (or if step reached total on a terminal).
  void update(int64_t step, const ProgressMetrics& metrics = {});
  // Clears the bar (if it is the one drawn) and leaves the screen: the last
  // bar to leave gives spdlog its own sinks back. Idempotent.
  void finish();

  bool interactive() const { return interactive_; }

 private:
  using Clock = std::chrono::steady_clock;
  double seconds_since(Clock::time_point t) const;

  ProgressState state_;
  ProgressBarOptions options_;
  bool interactive_;
  Clock::time_point start_;
  Clock::time_point last_shown_;
  bool shown_once_ = false;
  std::optional<ScreenLease> screen_;  // on a terminal only
};

}  // namespace cifar
