// transport_guards.cpp: c10d's log level and the terminate handler while a
// process group lives (see transport_guards.h).
#include "cifar/dist/transport_guards.h"

#include <c10/util/Logging.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cifar/core/errors.h"

namespace cifar {

QuietC10dLogs::QuietC10dLogs() : saved_(FLAGS_caffe2_log_level) {
  FLAGS_caffe2_log_level = std::max(saved_, 3);  // 3: fatal only
}

QuietC10dLogs::~QuietC10dLogs() {
  if (restore_) FLAGS_caffe2_log_level = saved_;
}

void TransportThreadErrors::exit_with_message() {
  const std::exception_ptr error = std::current_exception();
  if (!error) std::abort();  // not an exception: a bug elsewhere, keep the core dump
  std::string what = "an exception that is not a std::exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    what = first_line(e.what());
  } catch (...) {
  }
  if (what.find("NCCL") != std::string::npos || what.find("Watchdog") != std::string::npos) {
    // NCCL's watchdog, when TORCH_NCCL_ASYNC_ERROR_HANDLING was set to end
    // the process (cifar-train's own bound reports exchanges otherwise).
    spdlog::error(
        "distributed transport failed on one of NCCL's own threads ({}): an exchange failed or "
        "timed out (a process stopped or its GPU failed: see the other processes' output)",
        without_final_period(what));
  } else {
    spdlog::error(
        "distributed transport failed on one of its own threads ({}): the processes' exchanges "
        "did not match (started with different settings or data, which cifar-train checks at "
        "start, or a bug: please report it with the command lines)",
        without_final_period(what));
  }
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace cifar
