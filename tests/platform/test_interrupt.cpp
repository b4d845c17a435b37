// test_interrupt.cpp: one request per burst of signals; a later one exits at once;
// guards nest and restore the handlers they found.
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <thread>

#include "cifar/platform/interrupt.h"

using namespace cifar;

namespace {

struct ChildResult {
  int status = -1;  // exit status, or -1 if killed
  std::string err;  // what it wrote to stderr
};

// Runs fn in a child process under an InterruptGuard; fn returns the exit
// status the child should have if the guard did not end it first.
template <typename Fn>
ChildResult run_in_child(Fn fn) {
  int err[2];
  REQUIRE(::pipe(err) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(err[1], STDERR_FILENO);
    ::close(err[0]);
    int status = 99;
    {
      InterruptGuard guard;
      status = fn();
    }
    _exit(status);
  }
  ::close(err[1]);
  ChildResult r;
  char buf[512];
  for (ssize_t n; (n = ::read(err[0], buf, sizeof(buf))) > 0;)
    r.err.append(buf, static_cast<size_t>(n));
  ::close(err[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.status = WEXITSTATUS(status);
  return r;
}

void sleep_s(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

sig_atomic_t g_custom_calls = 0;
extern "C" void custom_handler(int) {
  ++g_custom_calls;
}

}  // namespace

TEST_CASE("signals that arrive together are one request", "[interrupt]") {
  // As `timeout` does: SIGTERM to the process and to its group, microseconds apart.
  const auto r = run_in_child([] {
    std::raise(SIGTERM);
    std::raise(SIGTERM);
    std::raise(SIGINT);
    return stop_requested() && stop_signal() == SIGTERM ? 0 : 1;
  });
  CHECK(r.status == 0);
  CHECK_THAT(r.err, Catch::Contains("writing a checkpoint") && !Catch::Contains("second"));
}

TEST_CASE("a second signal well after the first exits 130 at once", "[interrupt]") {
  const auto r = run_in_child([] {
    std::raise(SIGINT);
    sleep_s(kSameRequestSeconds + 0.3);
    std::raise(SIGINT);
    return 0;  // not reached: the second signal exits
  });
  CHECK(r.status == 130);
  CHECK_THAT(r.err, Catch::Contains("second interrupt: exiting now, without a checkpoint"));
}

TEST_CASE("interrupt guards nest and restore the handlers they found", "[interrupt]") {
  struct sigaction custom {};
  custom.sa_handler = custom_handler;
  sigemptyset(&custom.sa_mask);
  struct sigaction saved_int {
  }, saved_term{};
  sigaction(SIGINT, &custom, &saved_int);
  sigaction(SIGTERM, &custom, &saved_term);
  auto handler = [](int sig) {
    struct sigaction now {};
    sigaction(sig, nullptr, &now);
    return now.sa_handler;
  };
  {
    InterruptGuard outer;
    CHECK_FALSE(stop_requested());
    CHECK(handler(SIGINT) != custom_handler);
    std::raise(SIGINT);
    CHECK(stop_requested());
    {
      InterruptGuard inner;
      CHECK(stop_requested());  // a nested guard keeps the pending request
    }
    CHECK(handler(SIGINT) != custom_handler);  // the inner guard restored the outer's
    CHECK(handler(SIGTERM) != custom_handler);
  }
  CHECK(handler(SIGINT) == custom_handler);
  CHECK(handler(SIGTERM) == custom_handler);
  CHECK(g_custom_calls == 0);
  {
    InterruptGuard fresh;
    CHECK_FALSE(stop_requested());  // a new outermost guard starts clean
  }
  sigaction(SIGINT, &saved_int, nullptr);
  sigaction(SIGTERM, &saved_term, nullptr);
}

TEST_CASE("the first signal prints the innermost guard's notice", "[interrupt]") {
  // The outer guard is run_in_child's (the training notice); the inner one's
  // notice holds while it lives, and the outer's comes back after it.
  const auto inner = run_in_child([] {
    const InterruptGuard decoding("interrupt: stopping the decoding");
    std::raise(SIGINT);
    return stop_requested() ? 0 : 1;
  });
  CHECK(inner.status == 0);
  CHECK_THAT(inner.err, Catch::Contains("\ninterrupt: stopping the decoding\n") &&
                            !Catch::Contains("checkpoint"));
  const auto after = run_in_child([] {
    { const InterruptGuard decoding("interrupt: stopping the decoding"); }
    std::raise(SIGINT);
    return stop_requested() ? 0 : 1;
  });
  CHECK(after.status == 0);
  CHECK_THAT(after.err, Catch::Contains(kTrainingNotice) && !Catch::Contains("decoding"));
}
