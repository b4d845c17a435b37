// forecast.h: how long the whole run will take, said once, early.
//
// After the first 30 seconds of training steps (or the first epoch, if
// sooner), the pace so far gives the time of every step the run still has
// to take; one line says it, with the run's hint when it is long on a CPU
// (resolve/run_data.h slow_run_hint: ResNet-18's 30 epochs take many hours
// on a laptop's CPU, while the CPU recipes get a good model in minutes;
// photos from scratch, minutes where a pretrained start takes seconds), and
// with the time the run spent before its first step (reading and decoding
// the data, building the model), the whole run's. Evaluation is not counted.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cifar/resolve/run_data.h"

namespace cifar {

class RunForecast {
 public:
  using Clock = std::chrono::steady_clock;
  // `steps_left`: every step this invocation will take; `hint`: added when
  // the training time passes its after_s; `spent_before_s`: the seconds the
  // run took before `start`.
  RunForecast(int64_t steps_left, SlowRunHint hint, Clock::time_point start = Clock::now(),
              double spent_before_s = 0);

  // After each step; returns the line to log the one time it is due.
  std::string after_step(Clock::time_point now = Clock::now());

 private:
  int64_t steps_left_;
  SlowRunHint hint_;
  Clock::time_point start_;
  double spent_before_s_;
  int64_t steps_done_ = 0;
  bool said_ = false;
};

// "3 min 20 s", "2 h 05 min".
std::string format_span(double seconds);

}  // namespace cifar
