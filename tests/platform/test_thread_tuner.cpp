// test_thread_tuner.cpp: the tuner keeps the count that measures fastest and
// follows the machine when it changes (a fake clock: step time per thread count).
#include <catch2/catch.hpp>

#include <map>

#include "cifar/platform/thread_tuner.h"

using namespace cifar;
using Clock = ThreadTuner::Clock;

namespace {
// A machine whose step takes `step_ms[threads]` milliseconds.
struct FakeMachine {
  explicit FakeMachine(std::map<int, double> ms) : step_ms(std::move(ms)) {}
  std::map<int, double> step_ms;
  int threads = 0;
  Clock::time_point now{};
  std::vector<int> set_calls;

  ThreadTuner tuner(ThreadTunerOptions options = {}) {
    return ThreadTuner(
        {1, 2}, options, [this](int n) { threads = n, set_calls.push_back(n); },
        [this] { return now; });
  }
  void steps(ThreadTuner& t, int n) {
    for (int i = 0; i < n; ++i) {
      now += std::chrono::microseconds(static_cast<int64_t>(step_ms.at(t.threads()) * 1000));
      t.after_step(256);
    }
  }
};
}  // namespace

TEST_CASE("the thread tuner keeps the fastest count and re-checks", "[tuner]") {
  CHECK(ThreadTuner::candidates_for(16) == std::vector<int>{1, 8, 16});
  CHECK(ThreadTuner::candidates_for(2) == std::vector<int>{1, 2});
  CHECK(ThreadTuner::candidates_for(1) == std::vector<int>{1});

  FakeMachine busy({{2, 100.0}, {1, 20.0}});  // a busy neighbour: 2 threads collapse
  auto tuner = busy.tuner();
  CHECK(tuner.threads() == 1);  // starts with one thread, which never collapses
  busy.steps(tuner, 200);
  CHECK(tuner.threads() == 1);
  CHECK(busy.threads == 1);
  CHECK_THAT(tuner.last_decision(),
             Catch::Contains("1 -> 12800 img/s") &&
                 Catch::Contains("2 -> 2560 img/s (stopped after one step)") &&
                 Catch::Contains("using 1"));
  CHECK(busy.set_calls.front() == 2);  // the tuner sets threads only when it switches

  // The neighbour goes away: at the next re-check two threads win again.
  busy.step_ms = {{2, 10.0}, {1, 20.0}};
  busy.steps(tuner, 15 * 1000 / 20 + 200);
  CHECK(tuner.threads() == 2);
  CHECK(busy.threads == 2);
  CHECK_THAT(tuner.last_decision(), Catch::Contains("using 2"));
}

TEST_CASE("a trial ends after its time or its step budget, whichever first", "[tuner]") {
  FakeMachine m({{2, 1.0}, {1, 2.0}});
  auto tuner = m.tuner(ThreadTunerOptions{0.3, 5, 15});
  m.steps(tuner, 1 + 5);  // warm-up, then 5 steps: the step budget ends the trial of 1
  CHECK(m.threads == 2);
  m.steps(tuner, 1 + 5);
  CHECK(tuner.threads() == 2);
  CHECK_THAT(tuner.last_decision(), !Catch::Contains("stopped"));
  CHECK_THAT(tuner.last_decision(), Catch::Contains("2 -> 256000 img/s"));
}

TEST_CASE("a collapsed count costs one step per check, and evaluation is no step", "[tuner]") {
  FakeMachine busy({{1, 20.0}, {2, 200.0}});
  auto tuner = busy.tuner();
  int steps_on_two = 0;
  for (int i = 0; i < 100; ++i) {
    steps_on_two += tuner.threads() == 2;
    busy.steps(tuner, 1);
  }
  CHECK(steps_on_two == 1);  // the warm-up step already shows 10x: stopped there
  CHECK(tuner.threads() == 1);

  // An evaluation of 5 s between epochs, in the middle of a trial of 2 on an
  // idle machine: restart_clock keeps it out of the step that follows.
  FakeMachine idle({{1, 20.0}, {2, 10.0}});
  auto t2 = idle.tuner(ThreadTunerOptions{0.3, 50, 15});
  while (t2.threads() == 1) idle.steps(t2, 1);  // 1's trial done; 2's warm-up next
  idle.now += std::chrono::seconds(5);
  t2.restart_clock();
  idle.steps(t2, 100);
  CHECK(t2.threads() == 2);
  CHECK_THAT(t2.last_decision(), !Catch::Contains("stopped"));
}

TEST_CASE("trials stay within about a tenth of the time when steps take seconds", "[tuner]") {
  // airbench94 on 2 cores: about 5 s a step on two threads, 9 s on one.
  FakeMachine slow({{2, 5000.0}, {1, 9000.0}});
  auto tuner = slow.tuner();
  int one_thread_steps = 0;
  for (int i = 0; i < 400; ++i) {
    if (tuner.threads() == 1) ++one_thread_steps;
    slow.steps(tuner, 1);
  }
  CHECK(tuner.threads() == 2);
  INFO("steps on the slower count: " << one_thread_steps << " of 400");
  CHECK(one_thread_steps <= 400 / 20);  // half of each round's trials, a round per ~10x its time
  CHECK_THAT(tuner.last_decision(), Catch::Contains("using 2 until the next check in"));
}
