// transport_guards.h: process-wide settings changed while a process group lives.
//
// QuietC10dLogs silences c10d's own logging below fatal (on a dead peer its
// store logs each failure with a C++ stack trace; we turn the exception into
// one line). TransportThreadErrors turns an exception escaping one of the
// transport's threads into one error line and exit 1. Both restore the
// previous setting when they go.
#pragma once

#include <exception>

namespace cifar {

// While alive, c10d logs nothing below fatal: on a dead peer its store calls log
// each failure with a C++ stack trace before throwing, and we already turn
// the exception into one line. Restores c10's log level when it goes.
class QuietC10dLogs {
 public:
  QuietC10dLogs();
  ~QuietC10dLogs();
  QuietC10dLogs(const QuietC10dLogs&) = delete;
  QuietC10dLogs& operator=(const QuietC10dLogs&) = delete;

  // Leaves c10d quiet for the rest of the process: a thread left behind
  // (a store connection given up on) may still log when it fails.
  void keep() { restore_ = false; }

 private:
  int saved_;
  bool restore_ = true;
};

// While a process group lives, an exception that escapes one of the
// transport's own threads (gloo's event loop throws gloo::EnforceNotMet when
// what arrives does not fit the collective it expected) is one error line and
// exit status 1 instead of "terminate called after throwing ..." and an abort.
// Anything else that calls std::terminate still aborts. The previous handler
// is put back when the group goes.
class TransportThreadErrors {
 public:
  TransportThreadErrors() : previous_(std::set_terminate(&exit_with_message)) {}
  ~TransportThreadErrors() { std::set_terminate(previous_); }
  TransportThreadErrors(const TransportThreadErrors&) = delete;
  TransportThreadErrors& operator=(const TransportThreadErrors&) = delete;

 private:
  [[noreturn]] static void exit_with_message();

  std::terminate_handler previous_;
};

}  // namespace cifar
