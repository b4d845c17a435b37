// interrupt.cpp: async-signal-safe handling of SIGINT and SIGTERM.
#include "cifar/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace cifar {
namespace {

std::atomic<int> g_signal{0};  // see interrupt.h: the one global
struct sigaction g_old_int {};
struct sigaction g_old_term {};

extern "C" void on_signal(int sig) {
  if (g_signal.exchange(sig) != 0) {
    constexpr char kMsg[] = "\nsecond interrupt: exiting now, without a checkpoint\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
    ::_exit(130);
  }
  constexpr char kMsg[] =
      "\ninterrupt: finishing this step and writing a checkpoint (interrupt again to quit now)\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool stop_requested() {
  return g_signal.load(std::memory_order_relaxed) != 0;
}
int stop_signal() {
  return g_signal.load();
}

}  // namespace cifar
