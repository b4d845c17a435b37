// The progress line at several widths, and the bar's use of spdlog and stderr.
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cifar/report/progress_bar.h"
#include "test_helpers.h"

using cifar::format_progress_line;
using cifar::ProgressState;

namespace {

ProgressState midway() {
  ProgressState s;
  s.label = "epoch 1/2";
  s.step = 5250;
  s.total = 12500;
  s.elapsed_seconds = 12.0;  // 7250 steps left at 5250 per 12 s: 16.6 s
  s.rate = 2840;
  s.loss = 1.69251;
  s.accuracy = 0.3926;
  return s;
}

int columns(const std::string& s) {
  return static_cast<int>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<uint8_t>(c) & 0xC0) != 0x80; }));
}

bool has(const std::string& line, const std::string& part) {
  return line.find(part) != std::string::npos;
}

// Sets spdlog's default logger for a test, and puts the old one back.
class DefaultLoggerGuard {
 public:
  explicit DefaultLoggerGuard(std::shared_ptr<spdlog::logger> logger)
      : saved_(spdlog::default_logger()) {
    spdlog::set_default_logger(std::move(logger));
  }
  ~DefaultLoggerGuard() { spdlog::set_default_logger(saved_); }

 private:
  std::shared_ptr<spdlog::logger> saved_;
};

// Sends fd 2 to a file for a test, and back.
class StderrToFile {
 public:
  explicit StderrToFile(const std::filesystem::path& path) {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    std::FILE* f = std::fopen(path.c_str(), "w");
    ::dup2(::fileno(f), STDERR_FILENO);
    std::fclose(f);
  }
  ~StderrToFile() {
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }

 private:
  int saved_;
};

}  // namespace

TEST_CASE("a wide terminal shows every field and a 40-column bar", "[progress]") {
  const auto s = midway();
  CHECK(format_progress_line(s, 200, true) ==
        "epoch 1/2  42%|################........................| 5250/12500 "
        "[00:12<00:17, 2840 img/s, loss 1.6925, acc 39.3%]");
  // 0.42 * 40 cells = 16 full cells and 6 eighths of the next.
  const auto unicode = format_progress_line(s, 200);
  std::string full;
  for (int i = 0; i < 16; ++i) full += "█";
  CHECK(has(unicode, "|" + full + "▊" + std::string(23, ' ') + "| 5250/12500"));
  CHECK(columns(unicode) == columns(format_progress_line(s, 200, true)));
}

TEST_CASE("the bar narrows with the terminal and goes first", "[progress]") {
  const auto s = midway();
  const auto at100 = format_progress_line(s, 100, true);
  CHECK(columns(at100) == 99);  // the bar fills the line, less the last column
  CHECK(has(at100, "|#"));
  const auto at80 = format_progress_line(s, 80, true);  // no room for a 10-column bar
  CHECK_FALSE(has(at80, "|"));
  CHECK(at80 == "epoch 1/2  42% 5250/12500 [00:12<00:17, 2840 img/s, loss 1.6925, acc 39.3%]");
}

TEST_CASE("narrow terminals drop elapsed, rate and accuracy before loss and ETA", "[progress]") {
  const auto s = midway();
  CHECK(format_progress_line(s, 60, true) == "epoch 1/2  42% 5250/12500 [ETA 00:17, loss 1.6925]");
  CHECK(format_progress_line(s, 30, true) == "epoch 1/2  42% [ETA 00:17]");
  CHECK(format_progress_line(s, 16, true) == "epoch 1/2  42%");
  CHECK(format_progress_line(s, 6, true) == "epoch");
}

TEST_CASE("no width makes the line wrap", "[progress]") {
  auto s = midway();
  for (int width = 1; width <= 220; ++width) {
    for (const bool ascii : {true, false}) {
      const auto line = format_progress_line(s, width, ascii);
      INFO("width " << width << ": " << line);
      CHECK(columns(line) <= std::max(0, width - 1));
      CHECK(line.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("the start, the end and an unknown total", "[progress]") {
  auto s = midway();
  s.step = 0;
  s.elapsed_seconds = 0;
  s.rate = 0;
  s.loss.reset();
  s.accuracy.reset();
  CHECK(format_progress_line(s, 120, true) ==
        "epoch 1/2   0%|" + std::string(40, '.') + "| 0/12500 [00:00<?, ? img/s]");
  s.step = 12500;
  s.elapsed_seconds = 3725;
  s.rate = 3.5;
  CHECK(has(format_progress_line(s, 120, true),
            "100%|" + std::string(40, '#') + "| 12500/12500 [1:02:05<00:00, 3.50 img/s]"));
  s.total = 0;
  s.step = 300;
  CHECK(format_progress_line(s, 120, true) == "epoch 1/2 300 [1:02:05, 3.50 img/s]");
}

TEST_CASE("a resumed epoch estimates the time left from the steps done since", "[progress]") {
  auto s = midway();
  s.initial = 5000;  // 250 steps in 12 s: 7250 steps take 348 s
  CHECK(has(format_progress_line(s, 200, true), "[00:12<05:48,"));
}

TEST_CASE("the plain line for logs without a terminal", "[progress]") {
  CHECK(cifar::format_progress_plain(midway()) ==
        "epoch 1/2 step 5250/12500 (42%): loss 1.6925, acc 39.26%, 2840 img/s, ETA 00:17");
}

TEST_CASE("without a terminal the bar logs plain lines through spdlog", "[progress]") {
  std::ostringstream log;
  auto logger = std::make_shared<spdlog::logger>(
      "test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_pattern("%v");
  DefaultLoggerGuard guard(logger);
  cifar::ProgressBarOptions options;
  options.interactive = false;
  options.log_interval_seconds = 0;
  options.counted = "image";
  cifar::ProgressBar bar("evaluating", 10000, options);
  CHECK(bar.due());
  bar.update(4000, {.rate = 2000, .loss = 0.5, .accuracy = 0.25});
  bar.finish();
  // (the ETA after it depends on the microseconds this test took)
  const std::string text = log.str();
  CHECK(text.starts_with(
      "evaluating image 4000/10000 (40%): loss 0.5000, acc 25.00%, 2000 img/s, ETA "));
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  CHECK(logger->sinks().size() == 1);
}

TEST_CASE("a log line while the bar is up clears it, prints, and redraws it", "[progress]") {
  cifar::test::TempDir dir;
  const auto captured = dir.path() / "stderr.txt";
  auto inner = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("test", inner);
  logger->set_pattern("%v");
  DefaultLoggerGuard guard(logger);
  {
    StderrToFile redirect(captured);
    cifar::ProgressBarOptions options;
    options.interactive = true;
    options.refresh_seconds = 0;
    options.ascii = true;
    cifar::ProgressBar bar("epoch 1/2", 100, options);
    CHECK(logger->sinks().at(0) != inner);  // wrapped while the bar is up
    bar.update(40, {.rate = 10, .loss = 1.5, .accuracy = {}});
    spdlog::info("a log line");
    bar.update(50, {.rate = 10, .loss = 1.25, .accuracy = {}});
    bar.finish();
    CHECK(logger->sinks().at(0) == inner);  // given back
  }
  std::ifstream in(captured, std::ios::binary);
  const std::string out = cifar::test::read_all(in);
  INFO(out);
  const auto first = out.find("\repoch 1/2  40%|");
  const auto clear = out.find("\r\033[K", first + 1);
  const auto logged = out.find("a log line\n", first);
  REQUIRE(first != std::string::npos);
  REQUIRE(logged != std::string::npos);
  CHECK(clear < logged);  // the bar is cleared before the log line
  CHECK(out.compare(logged + 11, 15, "\repoch 1/2  40%") == 0);  // and redrawn right after it
  CHECK(has(out, "\repoch 1/2  50%|"));
  CHECK(out.size() >= 4);
  CHECK(out.substr(out.size() - 4) == "\r\033[K");  // finish() leaves a clean line
}

TEST_CASE("two bars, finished or destroyed in either order, leave the logger as it was",
          "[progress]") {
  cifar::test::TempDir dir;
  std::ostringstream log;
  auto own = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  auto other = std::make_shared<spdlog::sinks::null_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("test", spdlog::sinks_init_list{own, other});
  logger->set_pattern("%v");
  DefaultLoggerGuard guard(logger);
  const std::vector<spdlog::sink_ptr> original = logger->sinks();
  StderrToFile redirect(dir.path() / "stderr.txt");
  cifar::ProgressBarOptions options;
  options.interactive = true;
  options.refresh_seconds = 0;
  options.ascii = true;
  for (const bool first_ends_first : {true, false}) {
    for (const bool by_destructor : {false, true}) {
      CAPTURE(first_ends_first, by_destructor);
      auto first = std::make_unique<cifar::ProgressBar>("first", 10, options);
      first->update(1);
      auto second = std::make_unique<cifar::ProgressBar>("second", 10, options);
      second->update(1);
      CHECK(logger->sinks() != original);  // log lines go around the bars
      spdlog::info("two bars up");
      auto end = [&](std::unique_ptr<cifar::ProgressBar>& bar) {
        if (by_destructor) {
          bar.reset();
        } else {
          bar->finish();
        }
      };
      end(first_ends_first ? first : second);
      CHECK(logger->sinks() != original);  // the other bar is still up
      spdlog::info("one bar up");
      end(first_ends_first ? second : first);
      CHECK(logger->sinks() == original);  // the same sinks, in the same order
      first.reset();  // finish() then the destructor: nothing is restored twice
      second.reset();
      CHECK(logger->sinks() == original);
    }
  }
  spdlog::info("no bar up");
  std::string want;
  for (int i = 0; i < 4; ++i) want += "two bars up\none bar up\n";
  CHECK(log.str() == want + "no bar up\n");  // each line once, through the logger's own sink
}
