// evaluate.cpp: evaluation of a model, and of a checkpoint file.
#include "cifar/train/evaluate.h"

#include <spdlog/spdlog.h>

#include "cifar/core/errors.h"
#include "cifar/data/shard.h"
#include "cifar/dist/distributed.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights.h"
#include "cifar/platform/autocast.h"
#include "cifar/platform/device.h"
#include "cifar/platform/interrupt.h"
#include "cifar/platform/oom.h"

namespace cifar {
namespace F = torch::nn::functional;

namespace {
// Whether a stop was requested on any rank. One process: no communication.
bool any_rank_stops(Distributed& group, const torch::Device& device) {
  const bool mine = stop_requested();
  if (group.world_size() == 1) return mine;
  const torch::InferenceMode normal_tensors(false);  // collectives change them in place
  auto flag =
      torch::full({1}, mine ? 1.0 : 0.0, torch::TensorOptions(torch::kDouble).device(device));
  group.all_reduce_sum(flag);
  return flag.item<double>() > 0;  // the one host sync per evaluation batch
}
}  // namespace

ProgressBarOptions eval_progress_options(std::optional<bool> interactive,
                                         double log_interval_seconds) {
  ProgressBarOptions o;
  o.interactive = interactive;
  o.delay_seconds = 2;
  o.log_interval_seconds = log_interval_seconds;
  return o;
}

EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, int64_t batch_size,
                    AmpMode amp, int64_t num_classes, Distributed* dist,
                    const ProgressBarOptions* progress) {
  const auto device = data.device();
  Distributed alone(DistEnv{}, device);  // one process: its collectives return at once
  Distributed& group = dist != nullptr ? *dist : alone;
  const int64_t n = data.size();
  const SampleRange share = eval_range(n, group.rank(), group.world_size());
  // Rank 0's BatchNorm statistics on every rank: each rank's last training
  // forward updated its own, and the shards must be judged by one model.
  group.broadcast_buffers(model);
  const bool was_training = model.is_training();
  model.eval();
  EvalResult result;
  result.num_classes = num_classes;
  torch::Tensor packed;  // (C * C + 1) double: the confusion matrix, then the loss sum
  {
    torch::InferenceMode inference;
    const auto i64 = torch::TensorOptions().dtype(torch::kInt64).device(device);
    auto confusion = torch::zeros({num_classes * num_classes}, i64);
    auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
    const auto plan = data.plan_epoch(/*shuffle=*/false, /*augment=*/false, 0, 0);
    // Every rank runs the same number of batches (its share may be one
    // sample shorter), so that the stop check below is a collective they all
    // reach: a Ctrl-C seen by one rank stops them all at the same batch.
    const int64_t largest_share = (n + group.world_size() - 1) / group.world_size();
    const int64_t batches = (largest_share + batch_size - 1) / batch_size;
    std::optional<ProgressBar> bar;
    if (progress != nullptr) bar.emplace("evaluating", share.end - share.begin, *progress);
    for (int64_t b = 0; b < batches; ++b) {
      if (any_rank_stops(group, device)) {
        model.train(was_training);
        throw Interrupted("interrupted during evaluation");
      }
      const int64_t start = share.begin + b * batch_size;
      if (start >= share.end) continue;
      const Batch batch = data.batch(plan, start, std::min(batch_size, share.end - start));
      torch::Tensor logits;
      {
        AutocastScope autocast(device, amp);
        logits = model.forward(batch.images).to(torch::kFloat);  // (B, C)
      }
      loss_sum.add_(F::cross_entropy(logits, batch.labels,
                                     F::CrossEntropyFuncOptions().reduction(torch::kSum)));
      if (bar) bar->update(start + batch.labels.size(0) - share.begin);
      const auto pred = logits.argmax(1);  // (B)
      confusion.add_(
          torch::bincount(batch.labels * num_classes + pred, {}, num_classes * num_classes));
    }
    packed = torch::cat({confusion.to(torch::kDouble), loss_sum.reshape({1})});
  }
  packed = packed.clone();  // a normal tensor: inference tensors cannot be reduced in place
  group.all_reduce_sum(packed);
  const auto host = packed.cpu();  // one read-back for the whole split
  const double* values = host.data_ptr<double>();
  for (int64_t i = 0; i < num_classes * num_classes; ++i) {
    result.confusion.push_back(static_cast<int64_t>(values[i]));
  }
  result.total = n;
  for (int64_t c = 0; c < num_classes; ++c) {
    result.correct += result.confusion[static_cast<size_t>(c * num_classes + c)];
  }
  result.loss = n > 0 ? values[num_classes * num_classes] / static_cast<double>(n) : 0.0;
  model.train(was_training);
  return result;
}

namespace {
// A checkpoint, or weights from elsewhere dressed as one (no optimizer state).
LoadedCheckpoint load_model_file(const EvalConfig& config) {
  if (config.checkpoint.empty() == config.weights.empty()) {
    throw UsageError(
        "give --checkpoint FILE (written by cifar-train) or --weights FILE "
        "(.safetensors, .pt, .pth), one of them");
  }
  if (!config.checkpoint.empty()) {
    if (!config.mean.empty() || !config.std.empty()) {
      throw UsageError("--mean and --std go with --weights; a checkpoint carries its own");
    }
    LoadedCheckpoint checkpoint = load_checkpoint(config.checkpoint);
    const auto& info = checkpoint.info;
    spdlog::info("checkpoint: {} ({}, epoch {}, LibTorch {})", config.checkpoint, info.model,
                 info.epoch, info.libtorch_version);
    return checkpoint;
  }
  WeightsOptions options;
  if (!config.model.empty()) options.model = config.model;
  if (!config.stem.empty()) options.stem = config.stem;
  options.normalization = normalization_from_flags(config.mean, config.std);
  LoadedWeights weights = load_weights(config.weights, options);
  spdlog::info("weights: {} ({}); {}", config.weights, weights.info.model,
               weights.normalization_note);
  return weights_as_checkpoint(std::move(weights));
}
}  // namespace

EvalReport evaluate_checkpoint(const EvalConfig& config) {
  const torch::Device device = use_device(config.device);
  LoadedCheckpoint checkpoint = load_model_file(config);
  const auto& info = checkpoint.info;
  const DeviceDataset test_data(read_cifar10(config.data_dir, Split::kTest), device,
                                info.normalization);
  checkpoint.model->to(device);
  EvalReport report;
  report.model = info.model;
  report.device = device.str();
  report.class_names = info.class_names;
  const OomAdvice advice{"--batch-size", config.batch_size, info.model,
                         device,         config.amp,        test_data.size()};
  report.result = with_oom_advice(advice, [&] {
    const ProgressBarOptions progress = eval_progress_options();
    return evaluate(*checkpoint.model, test_data, config.batch_size, config.amp, info.num_classes,
                    nullptr, &progress);
  });
  return report;
}

}  // namespace cifar
