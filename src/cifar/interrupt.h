// interrupt.h: Ctrl-C and SIGTERM during training.
//
// While an InterruptGuard lives, the first SIGINT or SIGTERM only sets a flag:
// the trainer finishes its current step, writes a checkpoint, says how to
// resume and exits non-zero. A second signal exits at once (status 130).
// The flag is the project's one piece of global state: a signal handler can
// reach nothing else.
#pragma once

namespace cifar {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

bool stop_requested();
int stop_signal();  // the signal number received, 0 if none

}  // namespace cifar
