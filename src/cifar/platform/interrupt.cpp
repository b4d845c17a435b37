// interrupt.cpp: async-signal-safe handling of SIGINT, SIGTERM, SIGHUP and SIGPIPE.
#include "cifar/platform/interrupt.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace cifar {
namespace {

// The one global (see interrupt.h): 0 when no request is pending, else
// (monotonic milliseconds of the first signal) << 8 | signal number.
std::atomic<uint64_t> g_request{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "the handler needs a lock-free word");
// The innermost guard's notice, printed on the first signal.
std::atomic<const char*> g_notice{kTrainingNotice};
static_assert(std::atomic<const char*>::is_always_lock_free, "the handler reads it");

constexpr uint64_t kSameRequestMs = static_cast<uint64_t>(kSameRequestSeconds * 1000);

uint64_t monotonic_ms() {  // clock_gettime is async-signal-safe (POSIX.1-2008)
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

void say(const char* text, size_t size) {
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, text, size);
}

extern "C" void on_signal(int sig) {
  const uint64_t now = monotonic_ms();
  uint64_t seen = 0;
  if (g_request.compare_exchange_strong(seen, (now << 8) | static_cast<uint64_t>(sig & 0xff))) {
    const char* notice = g_notice.load();
    say("\n", 1);
    say(notice, std::strlen(notice));  // strlen is async-signal-safe (POSIX.1-2016)
    say("\n", 1);
    return;
  }
  // A closed pipe raises SIGPIPE again on every later write (the log's lines):
  // never a second request.
  if (sig == SIGPIPE) return;
  const uint64_t first = seen >> 8;
  if (now < first + kSameRequestMs) return;  // the same request, delivered twice
  constexpr char kMsg[] = "\nsecond interrupt: exiting now, without a checkpoint\n";
  say(kMsg, sizeof(kMsg) - 1);
  ::_exit(130);
}

}  // namespace

InterruptGuard::InterruptGuard(const char* notice) : old_notice_(g_notice.exchange(notice)) {
  // The outermost guard starts with no request; a nested one keeps any pending.
  struct sigaction current {};
  sigaction(SIGINT, nullptr, &current);
  if (current.sa_handler != on_signal) g_request.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);  // one handler at a time
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  sigaddset(&sa.sa_mask, SIGPIPE);
  sa.sa_flags = SA_RESTART;  // reads and writes carry on; the trainer polls the flag
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
  // A closed terminal (SIGHUP) and a closed log pipe (SIGPIPE: `2>&1 | tee
  // log`, tee gone) too, unless the process was told to ignore them (nohup).
  sigaction(SIGHUP, nullptr, &old_hup_);
  if (old_hup_.sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, nullptr);
  sigaction(SIGPIPE, nullptr, &old_pipe_);
  if (old_pipe_.sa_handler != SIG_IGN) sigaction(SIGPIPE, &sa, nullptr);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
  // After a stop (a closed pipe, or a Ctrl-C that also ended `| tee`), the
  // remaining writes (the stop's message) fail quietly rather than kill the
  // process before it exits with its status.
  if (stop_requested()) {
    signal(SIGPIPE, SIG_IGN);
  } else {
    sigaction(SIGPIPE, &old_pipe_, nullptr);
  }
  g_notice.store(old_notice_);
}

void InterruptGuard::notice(const char* text) {
  g_notice.store(text);
}

bool stop_requested() {
  return g_request.load(std::memory_order_relaxed) != 0;
}

int stop_signal() {
  return static_cast<int>(g_request.load() & 0xff);
}

}  // namespace cifar
