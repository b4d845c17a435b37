// interrupt.h: Ctrl-C and SIGTERM during training, evaluation, prediction
// (and decoding).
//
// While an InterruptGuard lives, the first SIGINT or SIGTERM (or SIGHUP, a
// closed terminal, or SIGPIPE, a closed log pipe, unless ignored, as under
// nohup) only sets a flag and prints the guard's notice: the trainer
// finishes its current step, writes a checkpoint, says how to resume and
// exits non-zero; decoding stops after its current few hundred images. Signals that arrive together
// are one request: `timeout` and a terminal's Ctrl-C can deliver the same request twice within
// microseconds (to the process and to its process group). Only a signal that
// comes more than kSameRequestSeconds after the first, measured on the
// monotonic clock, means "exit now": status 130 at once, without a checkpoint
// (never a SIGPIPE: each write to the closed pipe raises it again).
//
// The process-wide state is one atomic word (the signal number and the time
// of the first signal): a signal handler can reach nothing else. Guards nest:
// each restores the handlers it found, and only the outermost one clears a
// request when it starts.
#pragma once

#include <csignal>

namespace cifar {

inline constexpr double kSameRequestSeconds = 0.5;

// What the first signal prints while training runs.
inline constexpr const char* kTrainingNotice =
    "interrupt: finishing this step and writing a checkpoint (interrupt again to quit now)";

// What the first signal prints while cifar-eval or cifar-predict works.
inline constexpr const char* kEvaluationNotice =
    "interrupt: stopping after this batch (interrupt again to quit now)";
inline constexpr const char* kPredictionNotice =
    "interrupt: stopping after this image (interrupt again to quit now)";

class InterruptGuard {
 public:
  // `notice`: a string literal (the handler prints it; it must outlive the guard).
  explicit InterruptGuard(const char* notice = kTrainingNotice);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  // What the first signal prints from now on (a string literal), as the
  // guarded work moves on (a run's start, then its training).
  void notice(const char* text);

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
  struct sigaction old_pipe_ {};
  const char* old_notice_ = nullptr;
};

bool stop_requested();
int stop_signal();  // the signal number received, 0 if none

}  // namespace cifar
