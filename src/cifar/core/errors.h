// errors.h: the two kinds of failure cifar-train reports.
//
// A UsageError is the user's to fix on the command line or in a config file
// (exit status 2); any other std::exception is a runtime failure (exit 1).
// Messages say what is wrong, where, and how to fix it: main() prints them as
// one line and never shows a C++ stack trace unless --verbose is given.
#pragma once

#include <stdexcept>
#include <string>

namespace cifar {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when work stops because the user asked (SIGINT/SIGTERM): training
// has already written a checkpoint and says how to resume; decoding says how
// far it got.
class Interrupted : public std::runtime_error {
 public:
  // `announce` false: another process (rank 0) tells the user; log it quietly.
  explicit Interrupted(const std::string& what, bool announce = true)
      : std::runtime_error(what), announce_(announce) {}
  bool announce() const { return announce_; }

 private:
  bool announce_;
};

// The first line of an exception's message: c10::Error appends a C++ stack
// trace after a newline, which only --verbose should show.
inline std::string first_line(const std::string& message) {
  const auto end = message.find('\n');
  return end == std::string::npos ? message : message.substr(0, end);
}

// A message without its final period(s), to be followed by ": hint".
inline std::string without_final_period(std::string text) {
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace cifar
