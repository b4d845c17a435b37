// test_thread_choice.cpp: probes are charged to a run only when they can pay
// (a share of its expected training), a remembered count is used without
// probes, and a change of the machine's load brings a round that follows it.
// A fake machine: a probe or step takes ms[threads] milliseconds of fake time.
#include <catch2/catch.hpp>

#include <map>

#include "cifar/train/thread_choice.h"
#include "test_helpers.h"

using namespace cifar;
using Clock = ThreadTuner::Clock;

namespace {
struct FakeMachine {
  std::map<int, double> ms{{1, 20.0}, {2, 10.0}};
  int threads = 2;
  Clock::time_point now{};
  double others = 0;  // cores other processes keep busy
  double busy = 0;    // their cumulative CPU seconds

  void advance(double milliseconds) {
    now += std::chrono::microseconds(static_cast<int64_t>(milliseconds * 1000));
    busy += others * milliseconds / 1000;
  }
  ThreadChoice choice(ThreadChoiceOptions options) {
    options.load_check_seconds = 0;
    options.cpu_times = [this]() -> std::optional<CpuTimes> {
      advance(50);  // a reading covers some time (the data load before the first step)
      return CpuTimes{.busy_seconds = busy, .own_seconds = 0, .at = now};
    };
    ThreadTuner tuner(
        {1, 2}, {}, [this](int n) { threads = n; }, [this] { return now; });
    return ThreadChoice(CpuPlan{.threads = 2, .tune = true, .why = "test"}, std::move(tuner),
                        std::move(options));
  }
  // `steps` training steps of batch 256; `at(step)` may change the machine.
  std::map<int, int> train(ThreadChoice& c, int64_t steps,
                           const std::function<void(int64_t)>& at = {}) {
    std::map<int, int> ran;
    for (int64_t s = 0; s < steps; ++s) {
      if (at) at(s);
      c.before_step(s, 256, [this](int64_t) { advance(ms.at(threads)); });
      ++ran[threads];
      advance(ms.at(threads));
      c.after_step();
    }
    return ran;
  }
};

// DIR/t.json remembering `threads` (and the probes' img/s per count) for
// case "k" on an idle machine.
std::filesystem::path idle_cache(const cifar::test::TempDir& dir, int threads,
                                 std::map<int, double> rates) {
  const auto file = dir.path() / "t.json";
  ThreadCache(file).remember(
      {.key = "k", .others_load = 0, .threads = threads, .rates = std::move(rates)});
  return file;
}
}  // namespace

TEST_CASE("a short run spends at most its share of the training on thread probes",
          "[thread_choice]") {
  FakeMachine m;
  SECTION("without a cache: a twentieth; a 100-step run cannot pay for a round") {
    ThreadChoice c = m.choice({.steps = 100});  // about 1 s of training
    m.train(c, 100);
    CHECK(c.threads() == 2);
    CHECK(c.probe_seconds() <= 0.05 * 1.0 + 1e-9);
    CHECK_THAT(c.summary(), Catch::Contains("0 rounds") && Catch::Contains("too short"));
  }
  SECTION("beside a busy core, a run too short for a round trains on the core left free") {
    m.others = 1;
    m.ms = {{1, 20.0}, {2, 200.0}};  // two threads collapse
    ThreadChoice c = m.choice({.steps = 100});
    const auto ran = m.train(c, 100);
    CHECK(ran.at(1) == 100);
    CHECK(c.probe_seconds() <= 0.05 * 2.0 + 1e-9);  // a twentieth of 100 steps of 20 ms
    CHECK_THAT(c.summary(), Catch::Contains("too short"));
  }
  SECTION("with a cache: a quarter, the round shortened to fit") {
    const cifar::test::TempDir dir;
    ThreadChoice c = m.choice({.cache_file = dir.path() / "t.json", .case_key = "k", .steps = 100});
    m.train(c, 100);
    CHECK(c.threads() == 2);
    CHECK(c.probe_seconds() > 0);
    CHECK(c.probe_seconds() <= 0.25 * 1.0 + 1e-9);
    CHECK_THAT(c.summary(), Catch::Contains("1 round"));
    CHECK(ThreadCache(dir.path() / "t.json").find("k", 0.0));
  }
  SECTION("a long run measures as before: full trials") {
    ThreadChoice c = m.choice({.steps = 100000});
    m.train(c, 10);
    CHECK(c.probe_seconds() >= 2 * 0.3);
  }
}

TEST_CASE("a remembered thread count is used without probes until the load changes",
          "[thread_choice]") {
  const cifar::test::TempDir dir;
  const auto file = idle_cache(dir, 2, {{1, 1.0}, {2, 2.0}});
  FakeMachine m;
  ThreadChoice c = m.choice({.cache_file = file, .case_key = "k", .steps = 100000});
  // At step 500 another process takes a core: two threads collapse.
  const auto ran = m.train(c, 2000, [&](int64_t s) {
    if (s == 500) m.others = 1, m.ms = {{1, 20.0}, {2, 200.0}};
  });
  CHECK(c.remembered());
  CHECK(c.threads() == 1);
  CHECK(c.changed_at() >= 500);
  CHECK(c.changed_at() <= 502);  // the next reading, not the next periodic re-check
  CHECK(ran.at(2) <= 502);
  // The new load's choice is remembered beside the idle one.
  CHECK(ThreadCache(file).find("k", 1.0)->threads == 1);
  CHECK(ThreadCache(file).find("k", 0.0)->threads == 2);
}

TEST_CASE("a load change near a run's end brings no thread round the rest cannot pay for",
          "[thread_choice]") {
  const cifar::test::TempDir dir;
  const auto file = idle_cache(dir, 2, {{1, 1.0}, {2, 2.0}});
  FakeMachine m;
  ThreadChoice c = m.choice({.cache_file = file, .case_key = "k", .steps = 510});
  m.train(c, 510, [&](int64_t s) {
    if (s == 500) m.others = 1, m.ms = {{1, 20.0}, {2, 25.0}};  // 1 thread now a little faster
  });
  CHECK(c.remembered());
  CHECK(c.threads() == 2);
  CHECK(c.probe_seconds() == 0);  // ~8 steps left: a round would cost more than a quarter
}

TEST_CASE("a run too short to measure trains at the load's count whatever the cache holds",
          "[thread_choice]") {
  // The cache remembers 1 thread; an idle machine's count without a round is
  // 2. A 30-step run cannot pay for a round (its length told by the cache's
  // rates: 25,600 img/s at 2 threads, 10 ms a step, as on the fake machine):
  // it must train as it would with an empty cache (the same weights), and a
  // long run takes the remembered 1, neither probing.
  const cifar::test::TempDir dir;
  const auto file = idle_cache(dir, 1, {{1, 51200.0}, {2, 25600.0}});
  FakeMachine m;
  ThreadChoice short_run = m.choice({.cache_file = file, .case_key = "k", .steps = 30});
  const auto ran = m.train(short_run, 30);
  CHECK(ran.at(2) == 30);
  CHECK_FALSE(short_run.remembered());
  CHECK(short_run.probe_seconds() == 0);
  ThreadChoice long_run = m.choice({.cache_file = file, .case_key = "k", .steps = 100000});
  m.train(long_run, 10);
  CHECK(long_run.remembered());
  CHECK(long_run.threads() == 1);
  CHECK(long_run.probe_seconds() == 0);
}
