// test_forecast.cpp: the whole run's expected time, said once after 30 s.
#include <catch2/catch.hpp>

#include "cifar/data/dataset.h"
#include "cifar/resolve/run_data.h"
#include "cifar/train/forecast.h"

using namespace cifar;
using Clock = RunForecast::Clock;
using std::chrono::seconds;

TEST_CASE("the forecast comes once, after 30 s, from the pace so far", "[forecast]") {
  const Clock::time_point t0{};
  RunForecast forecast(100, SlowRunHint{}, t0);
  for (int s = 1; s <= 10; ++s) CHECK(forecast.after_step(t0 + seconds(2 * s)).empty());
  // 11 steps in 33 s: 3 s a step, 100 steps in 300 s.
  const std::string line = forecast.after_step(t0 + seconds(33));
  CHECK(line == "expected training time: about 5 min 00 s for 100 steps (3.00 s a step)");
  CHECK(forecast.after_step(t0 + seconds(40)).empty());                // once
  RunForecast decoded(100, SlowRunHint{}, t0, /*spent_before_s=*/25);  // decoding first
  for (int s = 1; s <= 10; ++s) decoded.after_step(t0 + seconds(2 * s));
  CHECK(decoded.after_step(t0 + seconds(33)) ==
        "expected training time: about 5 min 00 s for 100 steps (3.00 s a step); the whole run "
        "about 5 min 25 s, with the 25 s spent reading the data and setting up");
}

TEST_CASE("a run longer than its hint's time comes with the hint", "[forecast]") {
  const Clock::time_point t0{};
  const SlowRunHint hours = slow_run_hint(dataset_entry(DatasetKind{"cifar10"}),
                                          /*from_scratch=*/true, /*on_cpu=*/true, "configs");
  CHECK(hours.after_s == 3600);
  CHECK_THAT(hours.text, Catch::Contains("configs/airbench94.toml"));
  RunForecast cpu(10000, hours, t0);
  const std::string line = cpu.after_step(t0 + seconds(31));  // 31 s a step
  CHECK_THAT(line, Catch::StartsWith("expected training time: about 86 h 06 min"));
  CHECK_THAT(line, Catch::EndsWith("; " + hours.text));
  RunForecast hour(116, hours, t0);  // 31 s a step, 116 steps: just under an hour
  CHECK(hour.after_step(t0 + seconds(31)) ==
        "expected training time: about 59 min 56 s for 116 steps (31.00 s a step)");
  RunForecast short_run(1, hours, t0);  // its one step is the whole run
  CHECK(short_run.after_step(t0 + seconds(60)).empty());
  RunForecast none(10000, SlowRunHint{}, t0);
  CHECK(none.after_step(t0 + seconds(31)) ==
        "expected training time: about 86 h 06 min for 10000 steps (31.00 s a step)");
}

TEST_CASE("photos from scratch on a CPU are pointed to the pretrained start after 5 minutes",
          "[forecast]") {
  const DatasetKindEntry& folder = dataset_entry(DatasetKind{"folder"});
  const SlowRunHint photos =
      slow_run_hint(folder, /*from_scratch=*/true, /*on_cpu=*/true, "/opt/share/configs");
  CHECK(photos.after_s == 300);
  CHECK_THAT(photos.text, Catch::StartsWith("/opt/share/configs/photos-pretrained.toml"));
  CHECK_THAT(photos.text, Catch::EndsWith("; --time MINUTES fits this run to a budget"));
  const Clock::time_point t0{};
  RunForecast long_run(11, photos, t0);  // 31 s a step: 5 min 41 s
  CHECK_THAT(long_run.after_step(t0 + seconds(31)),
             Catch::StartsWith("expected training time: about 5 min 41 s") &&
                 Catch::EndsWith("; " + photos.text));
  RunForecast short_run(9, photos, t0);  // 4 min 39 s
  CHECK(short_run.after_step(t0 + seconds(31)) ==
        "expected training time: about 4 min 39 s for 9 steps (31.00 s a step)");
  // Photos from weights (fine-tuned, resumed): none, the CPU recipes being
  // for CIFAR's files; a GPU: none.
  CHECK(slow_run_hint(folder, /*from_scratch=*/false, true, "configs").after_s == 0);
  CHECK(slow_run_hint(folder, true, /*on_cpu=*/false, "configs").after_s == 0);
  CHECK(slow_run_hint(dataset_entry(DatasetKind{"cifar10"}), true, false, "configs").after_s == 0);
}

TEST_CASE("spans read as seconds, minutes or hours", "[forecast]") {
  CHECK(format_span(42) == "42 s");
  CHECK(format_span(200) == "3 min 20 s");
  CHECK(format_span(7500) == "2 h 05 min");
}
