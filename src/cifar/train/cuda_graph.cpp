// cuda_graph.cpp: GraphedStep, and a stub for builds without CUDA.
#include "cifar/train/cuda_graph.h"

#include <fmt/format.h>

#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/platform/interrupt.h"

#ifdef CIFAR_HAS_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace cifar {

#ifdef CIFAR_HAS_CUDA
namespace {

class GraphedStep final : public TrainStep {
 public:
  GraphedStep(ClassifierImpl& model, ParamGroups& groups, Sgd& optimizer, const Batch& example,
              const StepOptions& options, RunningTotals& totals)
      : side_(c10::cuda::getStreamFromPool(false, example.images.device().index())),
        guard_(wait_for_current(side_)),
        x_(example.images.clone()),
        y_(example.labels.clone()),
        lr_(torch::zeros({}, example.images.options().dtype(torch::kFloat))),
        groups_(groups) {
    const Batch batch{x_, y_};
    // Warm-up (cuDNN picks algorithms, autograd allocates) on throw-away
    // totals, then restore every parameter and buffer it touched.
    std::vector<torch::Tensor> state, saved;
    for (const auto& t : model.parameters()) state.push_back(t);
    for (const auto& t : model.buffers()) state.push_back(t);
    {
      torch::NoGradGuard no_grad;
      for (const auto& t : state) saved.push_back(t.detach().clone());
    }
    RunningTotals scratch(example.images.device());
    for (int i = 0; i < 3; ++i) {
      optimizer.zero_grad();
      forward_loss(model, batch, options, scratch, /*autocast_cache=*/false).backward();
    }
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < state.size(); ++i) state[i].copy_(saved[i]);
    }
    optimizer.zero_grad();
    try {
      graph_.capture_begin();
      forward_loss(model, batch, options, totals, /*autocast_cache=*/false).backward();
      optimizer.step(lr_);
      graph_.capture_end();
    } catch (const c10::Error& e) {
      throw std::runtime_error(fmt::format(
          "--cuda-graph: capturing the training step failed ({}); run without --cuda-graph",
          first_line(e.what())));
    }
  }
  ~GraphedStep() override { side_.synchronize(); }

  // One process only (train() refuses --cuda-graph with several).
  bool run(const Batch& batch, int64_t global_step) override {
    lr_.fill_(groups_.lr(global_step));
    x_.copy_(batch.images, /*non_blocking=*/true);
    y_.copy_(batch.labels, /*non_blocking=*/true);
    graph_.replay();
    return stop_requested();
  }

 private:
  // Makes `side` wait for the work queued so far, then makes it current.
  static c10::cuda::CUDAStream wait_for_current(c10::cuda::CUDAStream side) {
    c10::cuda::CUDAEvent ready;
    ready.record(c10::cuda::getCurrentCUDAStream(side.device_index()));
    ready.block(side);
    return side;
  }

  c10::cuda::CUDAStream side_;
  c10::cuda::CUDAStreamGuard guard_;
  torch::Tensor x_, y_;  // (B, 3, 32, 32) float and (B) int64, the graph's inputs
  torch::Tensor lr_;     // () float
  ParamGroups& groups_;  // one SGD group: its schedule sets lr_
  at::cuda::CUDAGraph graph_;
};

}  // namespace

std::unique_ptr<TrainStep> make_graphed_step(Learner& learner, const Batch& example,
                                             const StepOptions& options, RunningTotals& totals) {
  Sgd* sgd = learner.groups.single_sgd();
  if (sgd == nullptr) {
    throw UsageError(
        "--cuda-graph captures recipes with one SGD parameter group (the classic recipe); "
        "drop --cuda-graph for this recipe");
  }
  return std::make_unique<GraphedStep>(learner.model, learner.groups, *sgd, example, options,
                                       totals);
}

#else

std::unique_ptr<TrainStep> make_graphed_step(Learner&, const Batch&, const StepOptions&,
                                             RunningTotals&) {
  throw std::runtime_error(
      "--cuda-graph: this build has no CUDA support; run without --cuda-graph");
}

#endif

}  // namespace cifar
