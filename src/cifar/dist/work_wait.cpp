// work_wait.cpp: see work_wait.h.
#include "cifar/dist/work_wait.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <stdexcept>
#include <thread>

namespace cifar {

void wait_for_work(c10d::Work& work, c10d::Backend& backend, std::chrono::milliseconds timeout) {
  if (backend.getBackendName() != "nccl") {
    work.wait();  // blocks the host; throws on failure and on the group's timeout
    return;
  }
  try {
    work.wait();  // the current stream waits for the exchange
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!work.isCompleted()) {  // done, or its NCCL error is known
      if (std::chrono::steady_clock::now() >= deadline) {
        throw std::runtime_error(
            fmt::format("the exchange did not finish within --dist-timeout ({:g} s)",
                        std::chrono::duration<double>(timeout).count()));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (const std::exception_ptr error = work.exception()) std::rethrow_exception(error);
  } catch (...) {
    try {
      backend.abort();  // the communicators go: nothing waits on the dead exchange
    } catch (...) {     // already failing: the first error is the one reported
    }
    throw;
  }
}

void end_group(c10d::Backend& backend, bool failing) noexcept {
  try {
    if (failing) {
      backend.abort();
    } else {
      backend.shutdown();
    }
  } catch (const std::exception& e) {
    spdlog::debug("ending the process group: {}", e.what());
  } catch (...) {
  }
}

}  // namespace cifar
