// cuda_graph.cpp: GraphedStep, the checks every build makes before it, and a
// stub for builds without CUDA.
#include "cifar/train/cuda_graph.h"

#include <fmt/format.h>

#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/platform/interrupt.h"

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
class GraphedStep final : public TrainStep {
 public:
  GraphedStep(ClassifierImpl& model, ParamGroups& groups, Optimizer& optimizer,
              const Batch& example, const StepSpec& options, RunningTotals& totals)
      : caller_(c10::cuda::getCurrentCUDAStream(example.images.device().index())),
        x_(example.images.clone()),
        y_(example.labels.clone()),
        lr_(torch::zeros({}, example.images.options().dtype(torch::kFloat))),
        groups_(groups) {
    const auto device = example.images.device().index();
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device);
    wait_for(caller_, side);
    {
      const c10::cuda::CUDAStreamGuard on_side(side);
      warm_up(model, optimizer, options);
      optimizer.zero_grad();
      capture(side, [&] {
        forward_loss(model, Batch{x_, y_}, options, totals, /*autocast_cache=*/false).backward();
        optimizer.device_rate_step(lr_);
      });
    }
    wait_for(side, caller_);
  }

  // The graph's pool goes with it: its replays must be done first.
  ~GraphedStep() override {
    try {
      caller_.synchronize();
    } catch (const c10::Error&) {  // a failed run: its error is already on its way
    }
  }

  // One process only (train() refuses --cuda-graph with several).
  bool run(const Batch& batch, int64_t global_step) override {
    lr_.fill_(groups_.lr(global_step));
    x_.copy_(batch.images, /*non_blocking=*/true);
    y_.copy_(batch.labels, /*non_blocking=*/true);
    graph_.replay();
    return stop_requested();
  }

 private:
  // cuDNN picks its algorithms and autograd allocates on throw-away totals;
  // then every parameter and buffer it touched is put back.
  void warm_up(ClassifierImpl& model, Optimizer& optimizer, const StepSpec& options) {
    std::vector<torch::Tensor> state, saved;
    for (const auto& t : model.parameters()) state.push_back(t);
    for (const auto& t : model.buffers()) state.push_back(t);
    torch::NoGradGuard no_grad;
    for (const auto& t : state) saved.push_back(t.detach().clone());
    RunningTotals scratch(x_.device());
    for (int i = 0; i < 3; ++i) {
      optimizer.zero_grad();
      const torch::AutoGradMode grad(true);
      forward_loss(model, Batch{x_, y_}, options, scratch, /*autocast_cache=*/false).backward();
    }
    for (size_t i = 0; i < state.size(); ++i) state[i].copy_(saved[i]);
  }

  // Captures what `body` launches on `side`; on any failure the capture is
  // ended and the allocator freed of it before the error goes on.
  template <class Body>
  void capture(const c10::cuda::CUDAStream& side, Body body) {
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
    }
  }

  c10::cuda::CUDAStream caller_;  // where the step is replayed
  torch::Tensor x_, y_;           // (B, 3, S, S) float and (B) int64, the graph's inputs
  torch::Tensor lr_;              // () float
  ParamGroups& groups_;           // one SGD group: its schedule sets lr_
  Graph graph_;
  // The graph's memory pool, named before the capture: after a failed one
  // CUDAGraph::pool() throws, and abandon_capture needs the id to free it.
  at::cuda::MempoolId_t pool_ = at::cuda::graph_pool_handle();
};

}  // namespace
#endif

std::unique_ptr<TrainStep> make_graphed_step(Learner& learner, const DeviceDataset& data,
                                             const EpochPlan& plan, int64_t batch_size,
                                             const StepSpec& options, RunningTotals& totals) {
  // resolve/ refused both before (check_recipe_settings and config/'s
  // validate: one SGD group; run_spec.cpp: an epoch of no full batch).
  Optimizer* optimizer = learner.groups.single_optimizer();
  if (optimizer == nullptr) {
    throw std::logic_error(
        "--cuda-graph captures recipes with one parameter group (the classic recipe); "
        "drop --cuda-graph for this recipe");
  }
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
  return std::make_unique<GraphedStep>(learner.model, learner.groups, *optimizer,
                                       data.batch(plan, 0, batch_size), options, totals);
#else
  (void)data;
  (void)options;
  (void)totals;
  throw std::runtime_error(
      "--cuda-graph: this build has no CUDA support; run without --cuda-graph");
#endif
}

}  // namespace cifar
