// test_thread_tuner.cpp: the tuner keeps the count that measures fastest and
// follows the machine when it changes (a fake clock: step time per thread count).
#include <catch2/catch.hpp>

#include <map>

#include "cifar/thread_tuner.h"

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
        {2, 1}, options, [this](int n) { threads = n, set_calls.push_back(n); },
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
  CHECK(ThreadTuner::candidates_for(16) == std::vector<int>{16, 8, 1});
  CHECK(ThreadTuner::candidates_for(2) == std::vector<int>{2, 1});
  CHECK(ThreadTuner::candidates_for(1) == std::vector<int>{1});

  FakeMachine busy({{2, 100.0}, {1, 20.0}});  // a busy neighbour: 2 threads collapse
  auto tuner = busy.tuner();
  CHECK(tuner.threads() == 2);  // starts with all cores
  busy.steps(tuner, 200);
  CHECK(tuner.threads() == 1);
  CHECK(busy.threads == 1);
  CHECK_THAT(tuner.last_decision(), Catch::Contains("2 -> 2560 img/s") &&
                                        Catch::Contains("1 -> 12800 img/s") &&
                                        Catch::Contains("using 1"));
  CHECK(busy.set_calls.front() == 1);  // the tuner sets threads only when it switches

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
  m.steps(tuner, 1 + 5);  // warm-up, then 5 steps: the step budget ends the trial of 2
  CHECK(m.threads == 1);
  m.steps(tuner, 1 + 5);
  CHECK(tuner.threads() == 2);
  CHECK_THAT(tuner.last_decision(), Catch::Contains("2 -> 256000 img/s"));
}
