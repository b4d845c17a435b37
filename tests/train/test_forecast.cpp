// test_forecast.cpp: the whole run's expected time, said once after 30 s.
#include <catch2/catch.hpp>

#include "cifar/train/forecast.h"

using namespace cifar;
using Clock = RunForecast::Clock;
using std::chrono::seconds;

TEST_CASE("the forecast comes once, after 30 s, from the pace so far", "[forecast]") {
  const Clock::time_point t0{};
  RunForecast forecast(100, /*on_cpu=*/false, t0);
  for (int s = 1; s <= 10; ++s) CHECK(forecast.after_step(t0 + seconds(2 * s)).empty());
  // 11 steps in 33 s: 3 s a step, 100 steps in 300 s.
  const std::string line = forecast.after_step(t0 + seconds(33));
  CHECK(line == "expected training time: about 5 min 00 s for 100 steps (3.00 s a step)");
  CHECK(forecast.after_step(t0 + seconds(40)).empty());                   // once
  RunForecast decoded(100, /*on_cpu=*/false, t0, /*spent_before_s=*/25);  // decoding first
  for (int s = 1; s <= 10; ++s) decoded.after_step(t0 + seconds(2 * s));
  CHECK(decoded.after_step(t0 + seconds(33)) ==
        "expected training time: about 5 min 00 s for 100 steps (3.00 s a step); the whole run "
        "about 5 min 25 s, with the 25 s spent reading the data and setting up");
}

TEST_CASE("hours on a CPU come with a hint to the CPU recipes", "[forecast]") {
  const Clock::time_point t0{};
  RunForecast cpu(10000, /*on_cpu=*/true, t0);
  const std::string line = cpu.after_step(t0 + seconds(31));  // 31 s a step
  CHECK_THAT(line, Catch::StartsWith("expected training time: about 86 h 06 min"));
  CHECK_THAT(line, Catch::Contains("configs/airbench94.toml"));
  RunForecast gpu(10000, /*on_cpu=*/false, t0);
  CHECK_THAT(gpu.after_step(t0 + seconds(31)), !Catch::Contains("configs/"));
  RunForecast short_run(1, /*on_cpu=*/true, t0);  // its one step is the whole run
  CHECK(short_run.after_step(t0 + seconds(60)).empty());
}

TEST_CASE("spans read as seconds, minutes or hours", "[forecast]") {
  CHECK(format_span(42) == "42 s");
  CHECK(format_span(200) == "3 min 20 s");
  CHECK(format_span(7500) == "2 h 05 min");
}
