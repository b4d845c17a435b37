// test_thread_tuner.cpp: the tuner keeps the count that measures fastest and
// follows the machine when it changes (a fake clock: probe time per thread count).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "cifar/platform/thread_tuner.h"

using namespace cifar;
using Clock = ThreadTuner::Clock;

namespace {
// A machine whose probe or step takes `step_ms[threads]` milliseconds.
struct FakeMachine {
  explicit FakeMachine(std::map<int, double> ms) : step_ms(std::move(ms)) {}
  std::map<int, double> step_ms;
  int threads = 2;
  Clock::time_point now{};
  std::vector<int> set_calls;
  int probes = 0;
  std::map<int, int> probes_at;       // thread count -> probes run there
  std::vector<int64_t> probe_images;  // the images each probe was asked for
  std::vector<double> round_at;       // the fake time of each round, in seconds

  ThreadTuner tuner(ThreadTunerOptions options = {}) {
    return ThreadTuner(
        {1, 2}, options, [this](int n) { threads = n, set_calls.push_back(n); },
        [this] { return now; });
  }
  void advance() {
    now += std::chrono::microseconds(static_cast<int64_t>(step_ms.at(threads) * 1000));
  }
  // Training steps, each preceded by a round of probes when one is due.
  // Returns the steps that ran at each count.
  std::map<int, int> steps(ThreadTuner& t, int n, int64_t batch = 256) {
    std::map<int, int> at;
    for (int i = 0; i < n; ++i) {
      if (t.due()) {
        round_at.push_back(std::chrono::duration<double>(now.time_since_epoch()).count());
        t.run_round(batch, [this](int64_t images) {
          ++probes, ++probes_at[threads];
          probe_images.push_back(images);
          advance();
        });
      }
      ++at[threads];
      advance();
      t.after_step();
    }
    return at;
  }
};
}  // namespace

TEST_CASE("the thread tuner probes before the first step and re-checks", "[tuner]") {
  CHECK(ThreadTuner::candidates_for(16) == std::vector<int>{1, 8, 16});
  CHECK(ThreadTuner::candidates_for(2) == std::vector<int>{1, 2});
  CHECK(ThreadTuner::candidates_for(1) == std::vector<int>{1});

  FakeMachine busy({{2, 100.0}, {1, 20.0}});  // a busy neighbour: 2 threads collapse
  auto tuner = busy.tuner();
  CHECK(tuner.threads() == 2);  // before the first round: all cores, the plan's count
  CHECK(tuner.due());
  auto at = busy.steps(tuner, 200);
  CHECK(at[2] == 0);  // every step ran at the winner, from step 0 on
  CHECK(at[1] == 200);
  CHECK(busy.threads == 1);
  CHECK_THAT(tuner.last_decision(),
             Catch::Contains("1 -> 12800 img/s") &&
                 Catch::Contains("2 -> 2560 img/s (stopped after one probe)") &&
                 Catch::Contains("using 1"));
  CHECK(busy.probes_at[2] == 1);  // a collapsed count costs one probe

  // The neighbour goes away: at the next re-check two threads win again.
  busy.step_ms = {{2, 10.0}, {1, 20.0}};
  at = busy.steps(tuner, 15 * 1000 / 20 + 200);
  CHECK(tuner.threads() == 2);
  CHECK(busy.threads == 2);
  CHECK(at[2] > 0);
  CHECK_THAT(tuner.last_decision(), Catch::Contains("using 2"));
}

TEST_CASE("a trial ends after its time or its probe budget, whichever first", "[tuner]") {
  FakeMachine m({{2, 1.0}, {1, 2.0}});
  auto tuner = m.tuner(ThreadTunerOptions{.trial_seconds = 0.3, .trial_steps = 5});
  m.steps(tuner, 1);
  CHECK(m.probes_at[1] == 1 + 5);  // warm-up, then 5 probes: the budget ends the trial
  CHECK(m.probes_at[2] == 1 + 5);
  CHECK(tuner.threads() == 2);
  CHECK_THAT(tuner.last_decision(), !Catch::Contains("stopped"));
  CHECK_THAT(tuner.last_decision(), Catch::Contains("2 -> 256000 img/s"));

  FakeMachine slow({{2, 120.0}, {1, 200.0}});
  auto t2 = slow.tuner();
  slow.steps(t2, 1);
  CHECK(slow.probes_at[1] == 1 + 2);  // 0.3 s of 0.2 s probes: two after the warm-up
  CHECK(slow.probes_at[2] == 1 + 3);
}

TEST_CASE("the count in use stays unless another is clearly faster", "[tuner]") {
  // Two counts within the margin (5% apart): the one in use (all cores) stays,
  // so that a resumed run chooses as the straight one did.
  FakeMachine close({{2, 10.0}, {1, 9.5}});
  auto tuner = close.tuner();
  const auto at = close.steps(tuner, 3000);
  CHECK(tuner.rounds() > 1);
  CHECK(at.count(1) == 0);
  CHECK_THAT(tuner.last_decision(), Catch::Contains("using 2"));

  FakeMachine clear({{2, 10.0}, {1, 8.0}});  // 25% faster on one: it wins
  auto t2 = clear.tuner();
  clear.steps(t2, 10);
  CHECK(t2.threads() == 1);
}

TEST_CASE("evaluation between epochs is no training time", "[tuner]") {
  FakeMachine idle({{1, 20.0}, {2, 10.0}});
  auto tuner = idle.tuner();
  idle.steps(tuner, 10);
  CHECK(tuner.rounds() == 1);
  for (int epoch = 0; epoch < 5; ++epoch) {  // 5 s evaluations, 0.1 s of steps
    idle.now += std::chrono::seconds(5);
    tuner.restart_clock();
    idle.steps(tuner, 10);
  }
  CHECK(tuner.rounds() == 1);  // 0.6 s of training: no re-check due
  CHECK(tuner.step_seconds() == Approx(0.6));
}

TEST_CASE("probes stay within about a tenth of the time when steps take seconds", "[tuner]") {
  // airbench94 on 2 cores: about 5 s a step on two threads, 9 s on one.
  FakeMachine slow({{2, 5000.0}, {1, 9000.0}});
  auto tuner = slow.tuner();
  const auto at = slow.steps(tuner, 400);
  CHECK(at.count(1) == 0);
  CHECK(tuner.threads() == 2);
  INFO("probes " << tuner.probe_seconds() << " s, steps " << tuner.step_seconds() << " s");
  CHECK(tuner.probe_seconds() / (tuner.probe_seconds() + tuner.step_seconds()) <= 0.11);
  CHECK_THAT(tuner.last_decision(), Catch::Contains("using 2 until the next check in"));
}

TEST_CASE("a large batch is probed on a slice and its rate counts the slice", "[tuner]") {
  FakeMachine m({{2, 10.0}, {1, 20.0}});  // per probe, whatever its size
  auto tuner = m.tuner(ThreadTunerOptions{.probe_images = 100});
  m.steps(tuner, 1, /*batch=*/2000);
  REQUIRE_FALSE(m.probe_images.empty());
  CHECK(std::all_of(m.probe_images.begin(), m.probe_images.end(),
                    [](int64_t n) { return n == 100; }));
  CHECK_THAT(tuner.last_decision(),
             Catch::Contains("1 -> 5000 img/s") && Catch::Contains("2 -> 10000 img/s"));

  FakeMachine small({{2, 10.0}, {1, 20.0}});  // a batch under the slice: probed whole
  auto t2 = small.tuner(ThreadTunerOptions{.probe_images = 100});
  small.steps(t2, 1, /*batch=*/40);
  CHECK(small.probe_images.front() == 40);
  CHECK_THAT(t2.last_decision(), Catch::Contains("2 -> 4000 img/s"));
}

TEST_CASE("re-checks that keep the count come twice as far apart each time", "[tuner]") {
  // 1 s steps and probes at both counts; a round (0.3 s trials: a warm-up and
  // one counted probe per count) takes 4 s, so the first wait is 9 x 4 = 36 s.
  FakeMachine m({{2, 1000.0}, {1, 1000.0}});
  auto tuner = m.tuner();
  const auto rounds_until = [&](size_t n) {
    for (int i = 0; i < 100000 && m.round_at.size() < n; ++i) m.steps(tuner, 1);
    REQUIRE(m.round_at.size() == n);
  };
  rounds_until(5);
  // Each gap: the round's 4 s, then its wait of training.
  CHECK(m.round_at[1] - m.round_at[0] == Approx(4 + 36));
  CHECK(m.round_at[2] - m.round_at[1] == Approx(4 + 72));
  CHECK(m.round_at[3] - m.round_at[2] == Approx(4 + 144));
  CHECK(m.round_at[4] - m.round_at[3] == Approx(4 + 288));
  CHECK(tuner.threads() == 2);

  // A neighbour takes a core: the next round (after 576 s) moves to 1 thread,
  // and the waits start again from 9x the round. A round now takes 7 s: 2 s
  // at one thread, and 5 s at two (the warm-up collapses, one probe).
  m.step_ms = {{2, 5000.0}, {1, 1000.0}};
  rounds_until(8);
  CHECK(m.round_at[5] - m.round_at[4] >= 4 + 576);
  CHECK(tuner.threads() == 1);
  CHECK(m.round_at[6] - m.round_at[5] == Approx(7 + 63));
  CHECK(m.round_at[7] - m.round_at[6] == Approx(7 + 126));
  CHECK_THAT(tuner.last_decision(), Catch::Contains("next check in 252 s"));
}
