// test_step_memory.cpp: a CPU step's memory, forecast by a probe and scaled.
#include <catch2/catch.hpp>

#include <vector>

#include "cifar/model/models.h"
#include "cifar/train/step_memory.h"

using namespace cifar;

TEST_CASE("a step's memory grows with the batch and the pixels, the probe changing nothing",
          "[step_memory]") {
  torch::manual_seed(0);
  auto model = make_model(ModelOptions("resnet18"));
  model->train();
  std::vector<torch::Tensor> before;  // every weight and buffer (BatchNorm's statistics too)
  for (const auto& p : model->parameters()) before.push_back(p.clone());
  for (const auto& b : model->buffers()) before.push_back(b.clone());
  torch::manual_seed(1);
  const auto rng_before = torch::rand({1});  // the first draw after seed 1
  torch::manual_seed(1);
  StepMemoryOptions options{.batch = 4, .side = 64};
  const StepMemory at64 = forecast_step_memory(*model, options);
  CHECK(at64.per_image > 1'000'000);  // ResNet-18, 32 px stem: about 18 MB an image at 64 px
  CHECK(at64.step == 4 * at64.per_image);
  options.side = 32;  // probed at 32 px itself: a quarter of the pixels, within the heap's rounding
  const StepMemory at32 = forecast_step_memory(*model, options);
  CHECK(static_cast<double>(at32.per_image) ==
        Approx(static_cast<double>(at64.per_image) / 4.0).epsilon(0.25));
  options.side = 128;  // the probe stays at 64 px, scaled by four times the pixels
  const StepMemory at128 = forecast_step_memory(*model, options);
  CHECK(static_cast<double>(at128.per_image) ==
        Approx(4.0 * static_cast<double>(at64.per_image)).epsilon(0.05));
  CHECK(model->is_training());
  std::vector<torch::Tensor> after;
  for (const auto& p : model->parameters()) after.push_back(p);
  for (const auto& b : model->buffers()) after.push_back(b);
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) CHECK(torch::equal(after[i], before[i]));
  CHECK(torch::equal(torch::rand({1}), rng_before));  // no random draw
  // The evaluation's batch, probed without a graph at up to 64 px and scaled.
  options.eval_batch = 100;
  options.eval_side = 64;
  const StepMemory eval64 = forecast_step_memory(*model, options);
  CHECK(eval64.eval_per_image > 1'000'000);  // ResNet-18: about 8 MB an image at 64 px
  CHECK(eval64.eval == 100 * eval64.eval_per_image);
  options.eval_side = 256;
  const StepMemory eval256 = forecast_step_memory(*model, options);
  CHECK(static_cast<double>(eval256.eval_per_image) ==
        Approx(16.0 * static_cast<double>(eval64.eval_per_image)).epsilon(0.1));
  for (size_t i = 0; i < after.size(); ++i) CHECK(torch::equal(after[i], before[i]));
}

TEST_CASE("a step larger than the free memory is refused naming the batch that fits",
          "[step_memory]") {
  const StepMemoryOptions options{.batch = 8, .side = 512};
  const int64_t gib = int64_t{1} << 30;
  CHECK(step_memory_problem({.per_image = gib, .step = 8 * gib, .available = 20 * gib}, options, 8)
            .empty());
  CHECK(step_memory_problem({.per_image = gib, .step = 8 * gib, .available = 0}, options, 8)
            .empty());  // unknown: nothing said
  CHECK(step_memory_problem({.per_image = gib, .step = 8 * gib, .available = 5 * gib + 1}, options,
                            8) ==
        "a training step at batch 8 and 512 px would hold about 8.0 GiB (1.0 GiB an image), more "
        "than the 5.0 GiB free for this process: lower --batch-size to 5 or less, or --image-size");
  // Two processes of batch 8 (a global 16), each with its share.
  const StepMemoryOptions two{.batch = 8, .side = 512, .processes_here = 2};
  CHECK_THAT(
      step_memory_problem({.per_image = gib, .step = 8 * gib, .available = 3 * gib}, two, 16),
      Catch::Contains("free for this process (each of the 2 processes on this machine): lower "
                      "--batch-size to 6 or less"));
  CHECK_THAT(step_memory_problem({.per_image = 4 * gib, .step = 32 * gib, .available = 2 * gib},
                                 options, 8),
             Catch::Contains("lower --image-size (not one image fits)"));
  // An evaluation batch that would not fit, though the step does: the
  // evaluation's batch is named (it was left out: the first epoch trained,
  // then the evaluation took all the memory).
  const StepMemoryOptions evaluating{.batch = 8, .side = 512, .eval_batch = 100, .eval_side = 512};
  CHECK(step_memory_problem({.per_image = gib / 8,
                             .step = gib,
                             .available = 5 * gib,
                             .eval_per_image = gib / 4,
                             .eval = 25 * gib},
                            evaluating, 8) ==
        "an evaluation batch of 100 images at 512 px would hold about 25.0 GiB (256 MiB an "
        "image), more than the 5.0 GiB free for this process: lower --eval-batch-size to 20 or "
        "less");
  CHECK(step_memory_problem({.per_image = gib / 8,
                             .step = gib,
                             .available = 30 * gib,
                             .eval_per_image = gib / 4,
                             .eval = 25 * gib},
                            evaluating, 8)
            .empty());
  // Resumed: its image size and batch are the run's, so the advice is memory.
  const StepMemoryOptions resumed{.batch = 8, .side = 512, .resumed = true};
  CHECK_THAT(
      step_memory_problem({.per_image = gib, .step = 8 * gib, .available = 2 * gib}, resumed, 8),
      Catch::EndsWith(": free memory (other programs hold it), or continue on a machine "
                      "with more"));
}
