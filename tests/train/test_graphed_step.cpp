// test_graphed_step.cpp: what --cuda-graph's captured step cannot run (an
// epoch of no full batch, data off the GPU) stops it before any CUDA work (resolve/ refuses such
// settings earlier; here the step's own guard), so these checks hold on every machine (the capture
// itself is tested on a GPU: tests/cuda/test_gpu_paths.cpp).
#include <catch2/catch.hpp>

#include "cifar/core/errors.h"
#include "cifar/train/cuda_graph.h"
#include "cifar/train/epoch.h"
#include "test_helpers.h"
#include "train/lone_learner.h"

using namespace cifar;
using cifar::test::LoneLearner;
using cifar::test::synthetic;

TEST_CASE("a graphed epoch smaller than one batch stops the step, naming both sizes", "[epoch]") {
  const DeviceDataset train(synthetic(30, 1), torch::kCPU, Normalization{});
  LoneLearner a(make_model(ModelOptions("net")), 0.01);
  EpochOptions o;
  o.shape = epoch_shape(30, 64, /*drop_last=*/false, /*graphed=*/true);
  auto epoch = [&] {
    return train_one_epoch(a.learner, train, train.plan_epoch(false, false, 0, 1), o,
                           EpochPosition{});
  };
  CHECK_THROWS_AS(epoch(), std::logic_error);
  CHECK_THROWS_WITH(epoch(), Catch::Contains("--cuda-graph replays full batches of --batch-size "
                                             "64, but an epoch here has 30 training images") &&
                                 Catch::Contains("give --batch-size 30 or less"));
}

TEST_CASE("the graphed step takes CUDA data", "[epoch]") {
  const DeviceDataset train(synthetic(64, 1), torch::kCPU, Normalization{});
  const EpochPlan plan = train.plan_epoch(false, false, 0, 1);
  LoneLearner a(make_model(ModelOptions("net")), 0.01);
  RunningTotals totals(torch::kCPU);
  // The data on the CPU: no capture is attempted.
  CHECK_THROWS_WITH(make_graphed_step(a.learner, train, plan, 64, {}, totals),
                    Catch::Contains("--cuda-graph") &&
                        (Catch::Contains("CUDA device") || Catch::Contains("no CUDA support")));
}
