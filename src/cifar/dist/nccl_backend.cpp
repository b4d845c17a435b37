// nccl_backend.cpp: the NCCL process group (CUDA builds), or a stub.
#include "cifar/dist/nccl_backend.h"

#include <cstdlib>
#include <stdexcept>

#if defined(CIFAR_HAS_CUDA) && defined(CIFAR_HAS_NCCL)
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace cifar {

#if defined(CIFAR_HAS_CUDA) && defined(CIFAR_HAS_NCCL)

namespace {
// How much later than --dist-timeout NCCL's watchdog gives up on an exchange.
constexpr std::chrono::seconds kWatchdogMargin{30};
}  // namespace

bool nccl_compiled() {
  return true;
}

c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                    int rank, int size, int device_index,
                                                    std::chrono::milliseconds timeout) {
  // One process per GPU: the device is chosen before NCCL sees it.
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(device_index));
  // A failed exchange reaches the host through wait_for_work (work_wait.h),
  // which aborts the group and lets the one-line report name the cause. So
  // NCCL's watchdog must not end the process first, as by default it does
  // (TORCH_NCCL_ASYNC_ERROR_HANDLING 3), and its own timeout comes after
  // ours. Read when the group is made; a value the user set is kept.
  ::setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "0", /*overwrite=*/0);
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout + kWatchdogMargin;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
}

#else

bool nccl_compiled() {
  return false;
}

c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>&, int,
                                                    int, int, std::chrono::milliseconds) {
  throw std::runtime_error(
      "this cifar-train was built without NCCL (no CUDA LibTorch or no nccl.h): train on several "
      "GPUs with a CUDA build, or use --device cpu (gloo)");
}

#endif

}  // namespace cifar
