// nccl_backend.h: ProcessGroupNCCL behind one function, so that only
// nccl_backend.cpp needs CUDA's and NCCL's headers. Where the build has no
// CUDA or no nccl.h, the function throws a std::runtime_error saying so.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>

namespace cifar {

// True when this build can create NCCL process groups.
bool nccl_compiled();

// Makes `device_index` the current CUDA device, then creates the NCCL group
// of `size` ranks on `store`. Its collectives are waited for with
// wait_for_work (work_wait.h), bounded by `timeout`; NCCL's watchdog, told
// not to end the process, gives up only 30 s later.
c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                    int rank, int size, int device_index,
                                                    std::chrono::milliseconds timeout);

}  // namespace cifar
