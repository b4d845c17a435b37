// progress_screen.h: the last line of stderr, where progress bars draw, and
// spdlog's default logger routed around it.
//
// While at least one bar is up, the default logger's sinks are replaced by a
// single ScreenSink that holds them: a log line clears the bar's line, goes to
// those sinks, and the line is redrawn after it. Each bar holds a ScreenLease.
// The first lease installs the ScreenSink, later ones join it, and the last
// one to go puts the logger's own sinks back (the same objects, in the same
// order), so bars may finish in any order: nothing is restored twice or too
// early. A lease that drew the line last clears it when it goes.
#pragma once

#include <memory>
#include <string>

namespace spdlog {
class logger;
}  // namespace spdlog

namespace cifar {

class ScreenSink;  // progress_screen.cpp

class ScreenLease {
 public:
  // Joins the ScreenSink of spdlog's default logger, installing it if the
  // logger has none.
  ScreenLease();
  ~ScreenLease();  // release()
  ScreenLease(const ScreenLease&) = delete;
  ScreenLease& operator=(const ScreenLease&) = delete;

  // Draws `line` over the last line of stderr; this lease now owns the line.
  // Nothing after release().
  void draw(const std::string& line);
  // Clears the line if this lease drew it last; the last lease to go gives
  // the logger its sinks back. Idempotent.
  void release();

 private:
  std::shared_ptr<spdlog::logger> logger_;  // whose sinks the ScreenSink holds
  std::shared_ptr<ScreenSink> sink_;        // null once released
};

}  // namespace cifar
