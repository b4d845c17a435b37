// work_wait.h: waiting for a collective, bounded, and ending a process group,
// whatever the backend.
//
// gloo's Work::wait() blocks the host until the exchange is done and throws
// when it fails or outlives the group's timeout. NCCL's only makes the
// current CUDA stream wait for it: a failed exchange (a peer gone, an NCCL
// error) never reached the host, which hung in its next read of a device
// value until NCCL's watchdog ended the process with a message of its own.
// For NCCL, wait_for_work also polls the exchange on the host until it is
// done, its error is known, or the timeout has passed; on failure it aborts
// the group's communicators (the GPU's pending kernels end, so the process
// can exit) and throws, and the caller turns that into the same one-line
// report as gloo's (distributed.h). The training step reads a value back
// after its exchanges in any case, so the polling adds no wait of its own.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>

namespace cifar {

// Returns when `work` (a collective of `backend`) has finished; throws its
// error, or a std::runtime_error when NCCL's has not finished within
// `timeout` (--dist-timeout). NCCL: `backend` is aborted before the throw.
void wait_for_work(c10d::Work& work, c10d::Backend& backend, std::chrono::milliseconds timeout);

// Ends the group explicitly: shut down after a clean run (a ProcessGroupNCCL
// that is never shut down warns, as the process exits, that it was not
// destroyed, and aborts its communicators), aborted when `failing` (an error
// of this process is on its way out: nothing to wait for). Never throws.
void end_group(c10d::Backend& backend, bool failing) noexcept;

}  // namespace cifar
