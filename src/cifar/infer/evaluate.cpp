// evaluate.cpp: evaluation of a model, and of a checkpoint file.
#include "cifar/infer/evaluate.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/data/shard.h"
#include "cifar/dist/distributed.h"
#include "cifar/io/checkpoint.h"
#include "cifar/platform/autocast.h"
#include "cifar/platform/cpu_plan.h"
#include "cifar/platform/guards.h"
#include "cifar/platform/heap_reuse.h"
#include "cifar/platform/interrupt.h"
#include "cifar/platform/oom.h"

namespace cifar {
namespace F = torch::nn::functional;

namespace {
// The result of `n` samples from their summed counts on the host: (C * C + 2)
// double, the confusion matrix, the loss sum and the top-5 hits.
EvalResult unpack(const torch::Tensor& host, int64_t n, const EvalOptions& options) {
  const int64_t c = options.num_classes;
  EvalResult result;
  result.num_classes = c;
  result.tta = options.tta;
  const double* values = host.data_ptr<double>();
  for (int64_t i = 0; i < c * c; ++i) result.confusion.push_back(static_cast<int64_t>(values[i]));
  result.total = n;
  for (int64_t k = 0; k < c; ++k)
    result.correct += result.confusion[static_cast<size_t>(k * c + k)];
  result.loss = n > 0 ? values[c * c] / static_cast<double>(n) : 0.0;
  if (c > kTop5Above) result.correct_top5 = static_cast<int64_t>(values[c * c + 1]);
  return result;
}

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
  o.counted = "image";  // the bar counts images, not batches
  o.log_interval_seconds = log_interval_seconds;
  return o;
}

namespace {
void check_tta_level(int64_t level) {
  if (level < 0 || level > kMaxTta) {
    throw std::invalid_argument(
        fmt::format("test-time augmentation level {} is not one of 0 to {}", level, kMaxTta));
  }
}
}  // namespace

torch::Tensor tta_logits(ClassifierImpl& model, const torch::Tensor& images, int64_t tta,
                         const Precision& precision) {
  check_tta_level(tta);
  // Every view in the batch's own layout (channels-last stays channels-last).
  const auto format = images.suggest_memory_format();
  auto f = [&](const torch::Tensor& x) {
    AutocastScope autocast(x.device(), precision);
    return model.forward(x.contiguous(format)).to(torch::kFloat);  // (B, C)
  };
  auto mirror = [&](const torch::Tensor& x) { return 0.5 * f(x) + 0.5 * f(x.flip({-1})); };
  if (tta == 0) return f(images);
  if (tta == 1) return mirror(images);
  if (tta == kSelectiveTta) {
    // One plain view of every image, then level 2 for the quarter of the
    // batch whose top softmax probability is lowest (hiverge's selective TTA).
    auto logits = f(images);                                                      // (B, C)
    const int64_t k = (images.size(0) + 3) / 4;                                   // ceil(B / 4)
    const auto confidence = logits.softmax(1).amax(1);                            // (B)
    const auto doubtful = std::get<1>(confidence.topk(k, 0, /*largest=*/false));  // (k)
    logits.index_copy_(0, doubtful,
                       tta_logits(model, images.index_select(0, doubtful), 2, precision));
    return logits;
  }
  const int64_t h = images.size(2), w = images.size(3);
  const auto padded = torch::reflection_pad2d(images, {1, 1, 1, 1});  // (B, 3, H + 2, W + 2)
  const auto up_left = padded.slice(2, 0, h).slice(3, 0, w);
  const auto down_right = padded.slice(2, 2, h + 2).slice(3, 2, w + 2);
  const auto translated = torch::stack({mirror(up_left), mirror(down_right)}).mean(0);
  return 0.5 * mirror(images) + 0.5 * translated;
}

EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, int64_t batch_size,
                    const Precision& precision, int64_t num_classes, Distributed* dist,
                    const ProgressBarOptions* progress, int64_t tta) {
  return evaluate(model, data,
                  EvalOptions{.batch_size = batch_size,
                              .precision = precision,
                              .num_classes = num_classes,
                              .tta = tta,
                              .dist = dist,
                              .progress = progress,
                              .before_batch = {}});
}

EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, const EvalOptions& options) {
  const int64_t batch_size = options.batch_size;
  const int64_t num_classes = options.num_classes;
  const int64_t tta = options.tta;
  check_tta_level(tta);
  const auto device = data.device();
  Distributed alone(DistEnv{}, device);  // one process: its collectives return at once
  Distributed& group = options.dist != nullptr ? *options.dist : alone;
  const int64_t n = data.size();
  const SampleRange share = eval_range(n, group.rank(), group.world_size());
  // Rank 0's BatchNorm statistics on every rank: each rank's last training
  // forward updated its own, and the shards must be judged by one model.
  group.broadcast_buffers(model);
  const bool was_training = model.is_training();
  model.eval();
  const bool top5 = num_classes > kTop5Above;
  torch::Tensor packed;  // (C * C + 2) double: the confusion matrix, the loss sum, top-5 hits
  {
    torch::InferenceMode inference;
    const auto i64 = torch::TensorOptions().dtype(torch::kInt64).device(device);
    auto confusion = torch::zeros({num_classes * num_classes}, i64);
    auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
    auto top5_hits = torch::zeros({}, i64);
    const auto plan = data.plan_epoch(/*shuffle=*/false, /*augment=*/false, 0, 0);
    // Every rank runs the same number of batches (its share may be one
    // sample shorter), so that the stop check below is a collective they all
    // reach: a Ctrl-C seen by one rank stops them all at the same batch.
    const int64_t largest_share = (n + group.world_size() - 1) / group.world_size();
    const int64_t batches = (largest_share + batch_size - 1) / batch_size;
    std::optional<ProgressBar> bar;
    if (options.progress != nullptr) {
      bar.emplace("evaluating", share.end - share.begin, *options.progress);
    }
    for (int64_t b = 0; b < batches; ++b) {
      if (any_rank_stops(group, device)) {
        model.train(was_training);
        throw Interrupted("interrupted during evaluation");
      }
      const int64_t start = share.begin + b * batch_size;
      if (start >= share.end) continue;
      const Batch batch = data.batch(plan, start, std::min(batch_size, share.end - start));
      if (options.before_batch) options.before_batch(b);
      const auto logits = tta_logits(model, batch.images, tta, options.precision);  // (B, C) float
      loss_sum.add_(F::cross_entropy(logits, batch.labels,
                                     F::CrossEntropyFuncOptions().reduction(torch::kSum)));
      if (bar) bar->update(start + batch.labels.size(0) - share.begin);
      const auto pred = logits.argmax(1);  // (B)
      // index_add_, not torch::bincount: bincount sizes its output from the
      // input's maximum, which on a GPU is read back to the host (twice).
      confusion.index_add_(0, batch.labels * num_classes + pred, torch::ones_like(pred));
      if (top5) {
        const auto best5 = std::get<1>(logits.topk(5, 1));  // (B, 5)
        top5_hits.add_(best5.eq(batch.labels.unsqueeze(1)).sum());
      }
    }
    packed = torch::cat({confusion.to(torch::kDouble), loss_sum.reshape({1}),
                         top5_hits.to(torch::kDouble).reshape({1})});
  }
  packed = packed.clone();  // a normal tensor: inference tensors cannot be reduced in place
  group.all_reduce_sum(packed);
  model.train(was_training);
  return unpack(packed.cpu(), n, options);  // one read-back for the whole split
}

EvalReport evaluate_checkpoint(EvalRun run) {
  const torch::Device device = run.machine.device;
  const CpuPlan& cpu = run.machine.cpu;
  // The others' load is measured from here.
  ThreadRule threads(cpu, device.is_cpu() ? CpuTimesSource(read_cpu_times) : CpuTimesSource{});
  std::optional<CpuSettingsGuard> cpu_settings;  // the process's count comes back after
  std::optional<HeapReuseGuard> heap_reuse;      // CPU activations reused, not re-mapped
  if (device.is_cpu()) {
    cpu_settings.emplace(cpu.threads, /*onednn=*/true);
    heap_reuse.emplace();
  }
  LoadedCheckpoint& checkpoint = run.checkpoint;
  const auto& info = checkpoint.info;
  const int64_t tta = run.tta;
  spdlog::info("test-time augmentation: {}", run.tta_source);
  // The checkpoint's normalisation, whatever data it is evaluated on.
  const DeviceDataset test_data(run.test, device, info.normalization);
  checkpoint.model->to(device);
  EvalReport report;
  report.model = info.model;
  report.device = device.str();
  report.class_names = info.class_names;
  const Precision& precision = run.precision;
  const OomAdvice advice{"--batch-size", run.batch_size, info.model,
                         device,         precision,      test_data.size()};
  report.result = with_oom_advice(advice, [&] {
    const ProgressBarOptions progress = eval_progress_options(run.progress_bar);
    EvalOptions options{.batch_size = run.batch_size,
                        .precision = precision,
                        .num_classes = info.num_classes,
                        .tta = tta,
                        .dist = nullptr,
                        .progress = &progress,
                        .before_batch = {}};
    if (device.is_cpu()) {
      options.before_batch = [&threads](int64_t b) { threads.at_boundary("batch", b); };
    }
    return evaluate(*checkpoint.model, test_data, options);
  });
  // A stop during the last batch, after evaluate's last check (cifar-eval's
  // guard): no report.
  if (stop_requested()) throw Interrupted("interrupted during evaluation");
  return report;
}

}  // namespace cifar
