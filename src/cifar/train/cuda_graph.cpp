// cuda_graph.cpp: the CUDA graph replayer, the checks every build makes
// before it, and a stub for builds without CUDA.
#include "cifar/train/cuda_graph.h"

#include <fmt/format.h>

#include <stdexcept>

#include "cifar/core/errors.h"

#ifdef CIFAR_HAS_CUDA
#include <ATen/core/CachingHostAllocator.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

namespace cifar {

#ifdef CIFAR_HAS_CUDA
namespace {

// After a capture failed half-way: ends the stream's capture if it is still
// on (a stream left capturing fails every later launch on it), and stops
// routing allocations to the graph's pool; frees the pool unless the graph
// owns it (capture_end got as far as marking the capture ended: then the
// graph's reset() frees it). Never throws.
void abandon_capture(const c10::cuda::CUDAStream& stream, at::cuda::MempoolId_t pool,
                     bool graph_owns_pool) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream.stream(), &partial) == cudaSuccess && partial != nullptr) {
      cudaGraphDestroy(partial);
    }
  }
  (void)cudaGetLastError();  // the failure is reported by the caller, not by the next launch
  // The device allocator's routing and pool, and the pinned host
  // allocator's (capture_begin routes both; a routing left on would call a
  // filter of the destroyed graph). Each call may find nothing to do: caught.
  at::HostAllocator* host = at::getHostAllocator(at::kCUDA);
  try {
    c10::cuda::CUDACachingAllocator::endAllocateToPool(stream.device_index(), pool);
  } catch (...) {  // capture_end had ended the routing, or it never began
  }
  try {
    host->end_allocate_to_pool(pool);
  } catch (...) {
  }
  if (graph_owns_pool) return;
  try {
    c10::cuda::CUDACachingAllocator::releasePool(stream.device_index(), pool);
  } catch (...) {  // best effort: the run stops with the capture's error
  }
  try {
    host->release_pool(pool);
  } catch (...) {
  }
}

// at::cuda::CUDAGraph, whose capture_ended_ (protected) says whether its
// reset() will free the pool.
struct Graph : at::cuda::CUDAGraph {
  bool ended() const { return capture_ended_; }
};

// Makes `waiter` wait for the work queued on `stream` so far.
void wait_for(const c10::cuda::CUDAStream& stream, const c10::cuda::CUDAStream& waiter) {
  c10::cuda::CUDAEvent ready;
  ready.record(stream);
  ready.block(waiter);
}

// Warm-up and capture run on a side stream (capture cannot use the default
// one); replays run on the caller's current stream, like every other kernel
// of the run, so that evaluation and checkpoints between epochs see them in
// order.
class GraphReplayer final : public Replayer {
 public:
  explicit GraphReplayer(c10::DeviceIndex device)
      : caller_(c10::cuda::getCurrentCUDAStream(device)) {}

  // The graph's pool goes with it: its replays must be done first.
  ~GraphReplayer() override {
    try {
      caller_.synchronize();
    } catch (const c10::Error&) {  // a failed run: its error is already on its way
    }
  }

  void record(const std::function<void()>& warm_up, const std::function<void()>& body) override {
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, caller_.device_index());
    wait_for(caller_, side);
    {
      const c10::cuda::CUDAStreamGuard on_side(side);
      warm_up();
      capture(side, body);
    }
    wait_for(side, caller_);
  }

  void replay() override { graph_.replay(); }

 private:
  // Captures what `body` launches on `side`; on any failure the capture is
  // ended and the allocator freed of it before the error goes on.
  void capture(const c10::cuda::CUDAStream& side, const std::function<void()>& body) {
    try {
      graph_.capture_begin(pool_);
      body();
      graph_.capture_end();
    } catch (const c10::OutOfMemoryError&) {
      abandon_capture(side, pool_, graph_.ended());
      throw;  // with_oom_advice names --batch-size
    } catch (const c10::Error& e) {
      abandon_capture(side, pool_, graph_.ended());
      throw std::runtime_error(fmt::format(
          "--cuda-graph: capturing the training step failed ({}); run without --cuda-graph",
          first_line(e.what())));
    } catch (...) {  // any other error thrown by the body: the capture ended all the same
      abandon_capture(side, pool_, graph_.ended());
      throw;
    }
  }

  c10::cuda::CUDAStream caller_;  // where the step is replayed
  Graph graph_;
  // The graph's memory pool, named before the capture: after a failed one
  // CUDAGraph::pool() throws, and abandon_capture needs the id to free it.
  at::cuda::MempoolId_t pool_ = at::cuda::graph_pool_handle();
};

}  // namespace
#endif

std::unique_ptr<ReplayedStep> make_graphed_step(Learner& learner, const DeviceDataset& data,
                                                const EpochPlan& plan, int64_t batch_size,
                                                const StepSpec& options, RunningTotals& totals) {
  // resolve/ refused it before (run_spec.cpp: an epoch of no full batch).
  const int64_t n = plan.order.size(0);
  if (n < batch_size) {
    throw std::logic_error(fmt::format(
        "--cuda-graph replays full batches of --batch-size {}, but an epoch here has {} training "
        "images: give --batch-size {} or less, or train on more images",
        batch_size, n, n));
  }
#ifdef CIFAR_HAS_CUDA
  if (!data.device().is_cuda()) {
    throw std::runtime_error(
        fmt::format("--cuda-graph needs the data on a CUDA device, not {}", data.device().str()));
  }
  const auto device = data.device().index();
  return std::make_unique<ReplayedStep>(
      learner, options, totals, [device] { return std::make_unique<GraphReplayer>(device); });
#else
  (void)learner;
  (void)data;
  (void)options;
  (void)totals;
  throw std::runtime_error(
      "--cuda-graph: this build has no CUDA support; run without --cuda-graph");
#endif
}

}  // namespace cifar
