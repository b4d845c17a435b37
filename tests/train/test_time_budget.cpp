// test_time_budget.cpp: --time's fit of a run's epochs to its budget.
#include <catch2/catch.hpp>

#include "cifar/config/option_spec.h"
#include "cifar/optim/param_groups.h"
#include "cifar/train/time_budget.h"

using namespace cifar;

TEST_CASE("the epochs still to come fit what is left of the budget", "[time_budget]") {
  // 120 s: 20 s before the first step, then 10 s an epoch: 10 epochs in all.
  CHECK(fit_epochs(120, 30, 20, 1) == 10);
  CHECK(fit_epochs(120, 70, 20, 5) == 10);
  // To the nearest epoch: 44 s left at 10 s an epoch is 4 more, 46 s is 5.
  CHECK(fit_epochs(120, 76, 26, 5) == 9);
  CHECK(fit_epochs(120, 74, 24, 5) == 10);
  // A budget already spent, or nearly: one more epoch completes the schedule.
  CHECK(fit_epochs(60, 90, 20, 2) == 3);
  CHECK(fit_epochs(120, 118, 18, 10) == 11);
  // No measurable pace: one more.
  CHECK(fit_epochs(120, 20, 20, 1) == 2);
  // A budget that fits more than --epochs takes: its most (the log says the
  // run ends before the budget).
  CHECK(fit_epochs(6e7, 30, 20, 1) == options::kMaxEpochs);
  CHECK(fit_epochs(6e7, 30, 20, options::kMaxEpochs + 5) == options::kMaxEpochs + 6);
}

TEST_CASE("a budget counts from the process's start", "[time_budget]") {
  using BudgetClock = TimeBudget::Clock;
  const BudgetClock::time_point t0{};
  const TimeBudget budget{
      .seconds = 120, .started = t0, .first_step = t0 + std::chrono::seconds(20)};
  CHECK(budget.active());
  CHECK(budget.before_first_s() == 20);
  CHECK(budget.fit(1, t0 + std::chrono::seconds(30)) == 10);
  CHECK_FALSE(TimeBudget{}.active());
}

TEST_CASE("a new length stretches every run-long schedule, not a group's own", "[time_budget]") {
  auto param = [] { return torch::zeros({2}, torch::requires_grad()); };
  const ScheduleOptions linear{.schedule = Schedule::kLinear,
                               .lr = 1.0,
                               .warmup_epochs = 0,
                               .epochs = 4,
                               .steps_per_epoch = 10};
  std::vector<ParamGroup> groups;
  for (const bool own : {false, true}) {
    std::vector<torch::Tensor> params{param()};
    groups.push_back({.name = own ? "own" : "run",
                      .params = params,
                      .optimizer = std::make_unique<Sgd>(params, SgdOptions()),
                      .schedule = linear,
                      .own_span = own});
  }
  ParamGroups all(std::move(groups));
  CHECK(all.lr(20) == Approx(0.5));  // half way through 4 epochs
  all.set_run_epochs(8);
  CHECK(all.lr(20) == Approx(0.75));  // a quarter through 8
  CHECK(all.groups()[0].schedule.epochs == 8);
  CHECK(all.groups()[1].schedule.epochs == 4);
}
