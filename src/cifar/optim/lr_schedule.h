// lr_schedule.h: learning-rate schedules as pure functions of the step.
//
// The learning rate is a pure function of the global step (lr_at), so a
// resumed run needs no scheduler state. Each parameter group has its own
// schedule (param_groups.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "cifar/core/enum_names.h"

namespace cifar {

enum class Schedule { kConstant, kStep, kCosine, kOneCycle, kLinear };
// --schedule's names, in the order its refusal lists them (config/ reads them).
inline constexpr std::array<EnumName<Schedule>, 5> kScheduleNames{
    {{Schedule::kConstant, "constant"},
     {Schedule::kStep, "step"},
     {Schedule::kCosine, "cosine"},
     {Schedule::kOneCycle, "onecycle"},
     {Schedule::kLinear, "linear"}}};

std::string to_string(Schedule schedule);

struct ScheduleOptions {
  Schedule schedule = Schedule::kConstant;
  double lr = 0.001;
  double warmup_epochs = 0.0;
  int64_t epochs = 1;
  int64_t steps_per_epoch = 1;
};

// Learning rate for the 0-based global step:
//   constant  lr
//   step      lr, x0.1 after 50% and again after 75% of training
//   cosine    half-cosine from lr down to 0
//   linear    straight down from lr at step 0 to 0 at the end (airbench)
//   onecycle  linear rise from lr/25 to lr over the warm-up (30%
//             of training when --warmup-epochs is 0), then linear fall to 0
// For constant, step, cosine and linear a warm-up ramps linearly from 0 first.
double lr_at(const ScheduleOptions& options, int64_t step);

}  // namespace cifar
