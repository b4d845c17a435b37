// time_budget.h: --time MINUTES, a run's epochs fitted to a wall-time budget.
//
// Ultralytics' time= for this tool. The run starts on --epochs' schedule (at
// least two epochs); after each epoch but the last, the epochs still to come
// are fitted to what is left of the budget at the pace of the epochs so far
// (each epoch's training and evaluation, from the first step on: the time
// before it, starting up, reading and decoding the data, is spent once).
// The learning-rate schedule is a function of the run's length
// (optim/lr_schedule.h), so its warm-up and decay stretch or shrink with each
// fit, and the last epoch completes it: a fit never ends the run before one
// more epoch (a budget shorter than that is said, epoch_loop.cpp). Rounded to
// the nearest epoch, the run ends within about half an epoch of the budget.
// The fitted count is what a repeat with --epochs needs, and the run folder's
// config.toml holds it (--time dropped), so --resume continues to it.
#pragma once

#include <chrono>
#include <cstdint>

namespace cifar {

// The run's epochs after `done` of them, `elapsed_s` seconds after the
// process started, `before_first_s` of which went before the first step, on a
// budget of `budget_s`: done + the epochs that fit the rest at the pace so
// far (to the nearest), at least done + 1, at most kMaxEpochs (--epochs' own
// limit, so that the saved count reads back) unless done is already past it.
int64_t fit_epochs(double budget_s, double elapsed_s, double before_first_s, int64_t done);

// The budget of one run, and when its process and its first step started.
struct TimeBudget {
  using Clock = std::chrono::steady_clock;
  double seconds = 0;  // 0: no budget (--time 0)
  Clock::time_point started;
  Clock::time_point first_step;

  bool active() const { return seconds > 0; }
  // fit_epochs for `done` epochs at `now`.
  int64_t fit(int64_t done, Clock::time_point now = Clock::now()) const;
  double elapsed_s(Clock::time_point now = Clock::now()) const;
  double before_first_s() const;
};

}  // namespace cifar
