// test_lr_schedule.cpp: the learning-rate schedules as functions of the step.
#include <catch2/catch.hpp>

#include "cifar/optim/lr_schedule.h"

using namespace cifar;

TEST_CASE("learning-rate schedules", "[optim]") {
  ScheduleOptions o{Schedule::kConstant, 0.1, 0.0, 10, 100};
  CHECK(lr_at(o, 0) == Approx(0.1));
  CHECK(lr_at(o, 999) == Approx(0.1));
  o.schedule = Schedule::kStep;
  CHECK(lr_at(o, 499) == Approx(0.1));
  CHECK(lr_at(o, 500) == Approx(0.01));
  CHECK(lr_at(o, 800) == Approx(0.001));
  o.schedule = Schedule::kCosine;
  CHECK(lr_at(o, 0) == Approx(0.1));
  CHECK(lr_at(o, 500) == Approx(0.05));
  CHECK(lr_at(o, 1000) == Approx(0.0).margin(1e-12));
  o.warmup_epochs = 1;
  CHECK(lr_at(o, 0) == Approx(0.001));
  CHECK(lr_at(o, 99) == Approx(0.1));
  o.schedule = Schedule::kOneCycle;
  o.warmup_epochs = 0;  // 30% rise
  CHECK(lr_at(o, 0) == Approx(0.004));
  CHECK(lr_at(o, 300) == Approx(0.1));
  CHECK(lr_at(o, 650) == Approx(0.05));
  CHECK(lr_at(o, 1000) == Approx(0.0).margin(1e-12));
}

TEST_CASE("schedule names both ways", "[optim]") {
  for (const auto s : {Schedule::kConstant, Schedule::kStep, Schedule::kCosine, Schedule::kOneCycle,
                       Schedule::kLinear}) {
    CHECK(find_name(kScheduleNames, to_string(s)) == s);
  }
  CHECK(to_string(Schedule::kOneCycle) == "onecycle");
  // config/ refuses others, listing these (tests/config/test_refused_values.cpp).
  CHECK_FALSE(find_name(kScheduleNames, "exponential").has_value());
  CHECK(choices_of(kScheduleNames) == "constant, step, cosine, onecycle or linear");
}
