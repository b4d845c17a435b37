// training.cpp: the training loop, evaluation and the whole training job.
#include "cifar/training.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <sstream>
#include <string_view>

#include "cifar/checkpoint.h"
#include "cifar/device.h"
#include "cifar/errors.h"
#include "cifar/gpu.h"
#include "cifar/interrupt.h"

#include <ATen/autocast_mode.h>
#ifdef CIFAR_HAS_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace cifar {
namespace fs = std::filesystem;
namespace F = torch::nn::functional;
using Clock = std::chrono::steady_clock;

// --- Options -------------------------------------------------------------------

AmpMode parse_amp(const std::string& text) {
  if (text == "off") return AmpMode::kOff;
  if (text == "bf16") return AmpMode::kBf16;
  if (text == "fp16") {
    throw UsageError(
        "--amp fp16 needs dynamic loss scaling, which cifar-train does not implement; use --amp "
        "bf16 (as fast on Ampere and newer GPUs, and it needs no loss scaling)");
  }
  throw UsageError(fmt::format("unknown --amp '{}': choose bf16 or off", text));
}

void validate(const TrainConfig& c) {
  auto require = [](bool ok, const std::string& message) {
    if (!ok) throw UsageError(message);
  };
  if (!c.model.empty()) check_model_name(c.model);
  parse_stem(c.stem);
  parse_device(c.device);
  parse_schedule(c.schedule);
  parse_amp(c.amp);
  require(c.epochs >= 1, fmt::format("--epochs must be at least 1, got {}", c.epochs));
  require(c.batch_size >= 1, fmt::format("--batch-size must be at least 1, got {}", c.batch_size));
  require(c.eval_batch_size >= 1,
          fmt::format("--eval-batch-size must be at least 1, got {}", c.eval_batch_size));
  require(std::isfinite(c.lr) && c.lr > 0, fmt::format("--lr must be positive, got {}", c.lr));
  require(std::isfinite(c.momentum) && c.momentum >= 0 && c.momentum < 1,
          fmt::format("--momentum must be in [0, 1), got {}", c.momentum));
  require(!c.nesterov || c.momentum > 0, "--nesterov needs --momentum above 0");
  require(std::isfinite(c.weight_decay) && c.weight_decay >= 0,
          fmt::format("--weight-decay must be >= 0, got {}", c.weight_decay));
  require(std::isfinite(c.warmup_epochs) && c.warmup_epochs >= 0,
          fmt::format("--warmup-epochs must be >= 0, got {}", c.warmup_epochs));
  require(c.label_smoothing >= 0 && c.label_smoothing < 1,
          fmt::format("--label-smoothing must be in [0, 1), got {}", c.label_smoothing));
  require(c.threads >= 0,
          fmt::format("--threads must be at least 1 (or 0 for all cores), got {}", c.threads));
  require(c.train_limit >= 0, fmt::format("--train-limit must be >= 0, got {}", c.train_limit));
  require(c.log_interval_s > 0,
          fmt::format("--log-interval must be positive, got {}", c.log_interval_s));
}

std::string to_toml(const TrainConfig& c) {
  auto quoted = [](const std::string& v) { return nlohmann::json(v).dump(); };  // TOML basic string
  auto boolean = [](bool v) { return v ? "true" : "false"; };
  std::string out = "# cifar-train settings (read back with --config)\n";
  if (!c.model.empty()) out += fmt::format("model = {}\n", quoted(c.model));
  out += fmt::format("stem = {}\n", quoted(c.stem));
  if (c.data_dir) out += fmt::format("data = {}\n", quoted(*c.data_dir));
  out += fmt::format("train-limit = {}\naugment = {}\n", c.train_limit, boolean(c.augment));
  out += fmt::format("device = {}\nthreads = {}\n", quoted(c.device), c.threads);
  out += fmt::format(
      "epochs = {}\nbatch-size = {}\nlr = {}\nmomentum = {}\nnesterov = {}\nweight-decay = {}\n",
      c.epochs, c.batch_size, c.lr, c.momentum, boolean(c.nesterov), c.weight_decay);
  out += fmt::format("schedule = {}\nwarmup-epochs = {}\nlabel-smoothing = {}\nseed = {}\n",
                     quoted(c.schedule), c.warmup_epochs, c.label_smoothing, c.seed);
  out += fmt::format(
      "amp = {}\nchannels-last = {}\ncuda-graph = {}\ncudnn-benchmark = {}\ntf32 = {}\n"
      "eval-batch-size = {}\n",
      quoted(c.amp), boolean(c.channels_last), boolean(c.cuda_graph), boolean(c.cudnn_benchmark),
      boolean(c.tf32), c.eval_batch_size);
  if (!c.checkpoint.empty()) out += fmt::format("checkpoint = {}\n", quoted(c.checkpoint));
  if (!c.run_dir.empty()) out += fmt::format("run-dir = {}\n", quoted(c.run_dir));
  out += fmt::format("log-interval = {}\n", c.log_interval_s);
  return out;
}

// --- Autocast --------------------------------------------------------------------

namespace {

// Mixed precision for the forward pass, as Python's torch.autocast does it.
class AutocastScope {
 public:
  AutocastScope(const torch::Device& device, AmpMode amp, bool cache = true)
      : active_(amp == AmpMode::kBf16), type_(device.type()) {
    if (!active_) return;
    was_enabled_ = at::autocast::is_autocast_enabled(type_);
    old_dtype_ = at::autocast::get_autocast_dtype(type_);
    at::autocast::set_autocast_enabled(type_, true);
    at::autocast::set_autocast_dtype(type_, at::kBFloat16);
    at::autocast::set_autocast_cache_enabled(cache);
  }
  ~AutocastScope() {
    if (!active_) return;
    at::autocast::set_autocast_enabled(type_, was_enabled_);
    at::autocast::set_autocast_dtype(type_, old_dtype_);
    at::autocast::clear_cache();
    at::autocast::set_autocast_cache_enabled(true);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_;
  at::DeviceType type_;
  bool was_enabled_ = false;
  at::ScalarType old_dtype_ = at::kFloat;
};

int64_t steps_in_epoch(int64_t n, int64_t batch_size, bool drop_last) {
  return drop_last ? n / batch_size : (n + batch_size - 1) / batch_size;
}

// Forward and loss for one batch; accumulates loss and correct predictions on
// the device (no host synchronisation).
torch::Tensor forward_loss(ClassifierImpl& model, const Batch& batch, const EpochSettings& s,
                           torch::Tensor& loss_sum, torch::Tensor& correct) {
  torch::Tensor logits, loss;
  {
    AutocastScope autocast(batch.images.device(), s.amp, !s.cuda_graph);
    logits = model.forward(batch.images);  // (B, 10)
    loss = F::cross_entropy(logits.to(torch::kFloat), batch.labels,
                            F::CrossEntropyFuncOptions().label_smoothing(s.label_smoothing));
  }
  {
    torch::NoGradGuard no_grad;
    loss_sum.add_(loss.detach() * batch.labels.size(0));
    correct.add_(logits.argmax(1).eq(batch.labels).sum());
  }
  return loss;
}

[[noreturn]] void throw_non_finite(double loss, const EpochSettings& s, int64_t step) {
  const char* what = std::isnan(loss) ? "NaN" : loss > 0 ? "+inf" : "-inf";
  throw std::runtime_error(fmt::format(
      "loss became {} in epoch {} (by step {}): training stopped, and the checkpoints of earlier "
      "epochs are kept as they were. Lower --lr (now {}), add --warmup-epochs, or use --amp off",
      what, s.epoch, step, s.schedule.base_lr));
}

// Refreshes the progress display at most every half second on a terminal,
// else every --log-interval seconds. The loss read-back (a host sync on a GPU)
// happens only then, and a non-finite loss stops training there.
class ProgressTicker {
 public:
  ProgressTicker(const EpochSettings& s, int64_t steps)
      : progress_(s.progress_bar, steps, fmt::format("epoch {}/{}", s.epoch, s.epochs)),
        s_(s),
        steps_(steps),
        interval_(s.progress_bar ? 0.5 : s.log_interval_s),
        start_(Clock::now()),
        last_(start_) {}

  void tick(int64_t steps_done, int64_t images, const torch::Tensor& loss_sum) {
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval_) return;
    const double mean = loss_sum.item<double>() / static_cast<double>(images);
    if (!std::isfinite(mean)) throw_non_finite(mean, s_, steps_done);
    const double rate =
        static_cast<double>(images) / std::chrono::duration<double>(now - start_).count();
    const double eta = static_cast<double>((steps_ - steps_done) * s_.batch_size) / rate;
    progress_.update(steps_done, mean, rate, eta);
    last_ = now;
  }
  void finish() { progress_.finish(); }

 private:
  Progress progress_;
  const EpochSettings& s_;
  int64_t steps_;
  double interval_;
  Clock::time_point start_;
  Clock::time_point last_;
};

#ifdef CIFAR_HAS_CUDA
// The whole training step (forward, backward, optimizer) captured once as a
// CUDA graph and replayed: one launch per step instead of hundreds. Each batch
// is copied into the static input tensors; the learning rate lives in a device
// scalar that the captured update reads. Capture and replay run on a side
// stream, which is synchronised when the object goes.
class GraphedStep {
 public:
  GraphedStep(ClassifierImpl& model, Sgd& optimizer, const Batch& example, const EpochSettings& s,
              torch::Tensor& loss_sum, torch::Tensor& correct)
      : side_(c10::cuda::getStreamFromPool(false, example.images.device().index())),
        guard_(wait_for_current(side_)),
        x_(example.images.clone()),
        y_(example.labels.clone()),
        lr_(torch::zeros({}, example.images.options().dtype(torch::kFloat))) {
    const Batch batch{x_, y_};
    // Warm-up (cuDNN picks algorithms, autograd allocates) on throw-away
    // accumulators, then restore every parameter and buffer it touched.
    std::vector<torch::Tensor> state, saved;
    for (const auto& t : model.parameters()) state.push_back(t);
    for (const auto& t : model.buffers()) state.push_back(t);
    {
      torch::NoGradGuard no_grad;
      for (const auto& t : state) saved.push_back(t.detach().clone());
    }
    auto scratch_loss = torch::zeros_like(loss_sum);
    auto scratch_correct = torch::zeros_like(correct);
    for (int i = 0; i < 3; ++i) {
      optimizer.zero_grad();
      forward_loss(model, batch, s, scratch_loss, scratch_correct).backward();
    }
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < state.size(); ++i) state[i].copy_(saved[i]);
    }
    optimizer.zero_grad();
    try {
      graph_.capture_begin();
      forward_loss(model, batch, s, loss_sum, correct).backward();
      optimizer.step(lr_);
      graph_.capture_end();
    } catch (const c10::Error& e) {
      throw std::runtime_error(fmt::format(
          "--cuda-graph: capturing the training step failed ({}); run without --cuda-graph",
          first_line(e.what())));
    }
  }
  ~GraphedStep() { side_.synchronize(); }
  GraphedStep(const GraphedStep&) = delete;
  GraphedStep& operator=(const GraphedStep&) = delete;

  void run(const Batch& batch, double lr) {
    lr_.fill_(lr);
    x_.copy_(batch.images, /*non_blocking=*/true);
    y_.copy_(batch.labels, /*non_blocking=*/true);
    graph_.replay();
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
  at::cuda::CUDAGraph graph_;
};
#endif

}  // namespace

// --- One epoch -------------------------------------------------------------------

EpochStats train_one_epoch(ClassifierImpl& model, Sgd& optimizer, const DeviceDataset& data,
                           const EpochPlan& plan, const EpochSettings& s) {
  const auto device = data.device();
  const int64_t n = data.size();
  // A CUDA graph replays fixed shapes: it drops the last partial batch.
  const bool graphed = s.cuda_graph && device.is_cuda();
  const int64_t steps = steps_in_epoch(n, s.batch_size, graphed);
  model.train();
  auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device));

  EpochStats stats;
  reset_peak_memory(device);
  EpochTimer timer(device);
  timer.start();
  {
#ifdef CIFAR_HAS_CUDA
    std::unique_ptr<GraphedStep> graph;
    if (graphed) {
      graph = std::make_unique<GraphedStep>(model, optimizer, data.batch(plan, 0, s.batch_size), s,
                                            loss_sum, correct);
    }
#endif
    ProgressTicker ticker(s, steps);
    int64_t step = s.first_step;
    while (step < steps) {
      const int64_t start = step * s.batch_size;
      const int64_t count = std::min(s.batch_size, n - start);
      stats.last_lr = lr_at(s.schedule, s.global_step + (step - s.first_step));
      const Batch batch = data.batch(plan, start, count);
#ifdef CIFAR_HAS_CUDA
      if (graph) {
        graph->run(batch, stats.last_lr);
      } else
#endif
      {
        optimizer.zero_grad();
        forward_loss(model, batch, s, loss_sum, correct).backward();
        optimizer.step(stats.last_lr);
      }
      stats.images += count;
      ++step;
      if (stop_requested()) {
        stats.interrupted = true;
        break;
      }
      ticker.tick(step, stats.images, loss_sum);
    }
    stats.steps = step;
    ticker.finish();
  }
  stats.seconds = timer.stop();
  stats.peak_memory_bytes = peak_memory_bytes(device);
  if (stats.images > 0) {
    stats.loss = loss_sum.item<double>() / static_cast<double>(stats.images);
    stats.accuracy =
        static_cast<double>(correct.item<int64_t>()) / static_cast<double>(stats.images);
    if (!std::isfinite(stats.loss)) throw_non_finite(stats.loss, s, stats.steps);
  }
  return stats;
}

// --- Evaluation ------------------------------------------------------------------

EvalResult evaluate(ClassifierImpl& model, const DeviceDataset& data, int64_t batch_size,
                    AmpMode amp, int64_t num_classes) {
  const auto device = data.device();
  const bool was_training = model.is_training();
  model.eval();
  EvalResult result;
  result.num_classes = num_classes;
  {
    torch::InferenceMode inference;
    const auto i64 = torch::TensorOptions().dtype(torch::kInt64).device(device);
    auto confusion = torch::zeros({num_classes * num_classes}, i64);
    auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
    const auto plan = data.plan_epoch(/*shuffle=*/false, /*augment=*/false, 0, 0);
    const int64_t n = data.size();
    for (int64_t start = 0; start < n; start += batch_size) {
      const Batch batch = data.batch(plan, start, std::min(batch_size, n - start));
      torch::Tensor logits;
      {
        AutocastScope autocast(device, amp);
        logits = model.forward(batch.images).to(torch::kFloat);  // (B, C)
      }
      loss_sum.add_(F::cross_entropy(logits, batch.labels,
                                     F::CrossEntropyFuncOptions().reduction(torch::kSum)));
      const auto pred = logits.argmax(1);
      confusion.add_(
          torch::bincount(batch.labels * num_classes + pred, {}, num_classes * num_classes));
    }
    const auto host = confusion.cpu();  // one read-back for the whole split
    result.confusion.assign(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + host.numel());
    result.total = n;
    for (int64_t c = 0; c < num_classes; ++c) {
      result.correct += result.confusion[c * num_classes + c];
    }
    result.loss = n > 0 ? loss_sum.item<double>() / static_cast<double>(n) : 0.0;
  }
  model.train(was_training);
  return result;
}

// --- The whole job ---------------------------------------------------------------

namespace {

std::string default_run_dir(const std::string& model) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
  return (fs::path("runs") / fmt::format("{}-{}", stamp, model)).string();
}

// "a = 1\nb = 2\n" -> "a = 1, b = 2" (comments dropped), for the log.
std::string one_line(const std::string& toml) {
  std::string out;
  std::istringstream in(toml);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (!out.empty()) out += ", ";
    out += line;
  }
  return out;
}

// How the CPU trains, chosen from measurements on 2 cores (full epochs of
// net, images/s): at batch 8 or fewer, oneDNN's convolutions cost more than
// ATen's im2col + GEMM (batch 4: 1,672 with oneDNN on 2 threads, 2,053 on one;
// without oneDNN 2,760 on two, 2,490 on one), while at batch 256 oneDNN is
// twice as fast. So small batches train without oneDNN; evaluation, in large
// batches, always uses it. --threads N sets the thread count (default: all).
struct CpuPlan {
  int threads;
  bool training_onednn;
};

CpuPlan choose_cpu_plan(int requested_threads, int64_t batch_size) {
  return {requested_threads > 0 ? requested_threads : torch::get_num_threads(), batch_size > 8};
}

// Switches LibTorch's CPU settings for one phase (no-op on a GPU).
void use_cpu_plan(const torch::Device& device, int threads, bool onednn) {
  if (!device.is_cpu()) return;
  torch::set_num_threads(threads);
  at::globalContext().setUserEnabledMkldnn(onednn);
}

// An allocation failure (CUDA's OutOfMemoryError, or the CPU allocator's
// "can't allocate memory") becomes advice naming the batch size to lower.
void rethrow_out_of_memory(const c10::Error& e, const std::string& option, int64_t batch_size,
                           const std::string& model, const torch::Device& device, AmpMode amp) {
  const bool oom =
      dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr ||
      std::string_view(e.what()).find("can't allocate memory") != std::string_view::npos;
  if (!oom) return;
  throw std::runtime_error(
      fmt::format("out of memory on {} at {} {} with model {}: try {} {}{}", device.str(), option,
                  batch_size, model, option, std::max<int64_t>(1, batch_size / 2),
                  amp == AmpMode::kOff && device.is_cuda() ? " or --amp bf16" : ""));
}

void to_channels_last(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

}  // namespace

TrainResult train(const TrainConfig& config) {
  validate(config);
  const std::string config_toml = to_toml(config);
  spdlog::info("settings: {}", one_line(config_toml));
  const CpuPlan cpu = choose_cpu_plan(config.threads, config.batch_size);

  // 1. Device, with the tutorial's fallback.
  const DeviceChoice choice = choose_device(config.device);
  if (!choice.fallback_warning.empty()) spdlog::warn("{}", choice.fallback_warning);
  const torch::Device device = choice.device;
  if (device.is_cuda()) configure_cuda_math(config.cudnn_benchmark, config.tf32);
  const AmpMode amp = parse_amp(config.amp);
  spdlog::info("device: {}{}", device.str(),
               device.is_cpu() ? fmt::format(" ({} threads{})", cpu.threads,
                                             cpu.training_onednn ? "" : ", training without oneDNN")
                               : "");
  if (config.cuda_graph && !device.is_cuda()) {
    spdlog::warn("--cuda-graph needs a CUDA device; training eagerly on {}", device.str());
  }

  // 2. The checkpoint to resume from, if any: it fixes the model.
  std::optional<LoadedCheckpoint> resumed;
  if (!config.resume.empty()) {
    resumed = load_checkpoint(config.resume);
    const auto& info = resumed->info;
    if (!config.model.empty() && config.model != info.model) {
      throw UsageError(
          fmt::format("--resume {} holds a {} model, but --model is {}; drop --model "
                      "or resume a {} checkpoint",
                      config.resume, info.model, config.model, config.model));
    }
    if (info.epoch >= config.epochs && info.step_in_epoch == 0) {
      throw UsageError(
          fmt::format("--resume {} has already trained {} epochs; pass --epochs above "
                      "{} to train further",
                      config.resume, info.epoch, info.epoch));
    }
  }
  const std::string model_name =
      resumed ? resumed->info.model : (config.model.empty() ? "net" : config.model);
  const std::string stem = resumed ? resumed->info.stem : config.stem;

  // 3. Outputs: found writable before any training starts.
  const fs::path run_dir = config.run_dir.empty() ? default_run_dir(model_name) : config.run_dir;
  const fs::path checkpoint_path =
      config.checkpoint.empty() ? fs::path(model_name + ".pt") : fs::path(config.checkpoint);
  ensure_writable(run_dir / "last.pt");
  ensure_writable(checkpoint_path);
  write_file_atomically(run_dir / "config.toml", config_toml);

  // 4. Data: read once, moved to the device once.
  const fs::path data_dir = resolve_data_dir(config.data_dir, std::getenv("CIFAR10_DIR"));
  Cifar10Dataset train_split = read_cifar10(data_dir, Split::kTrain);
  const Cifar10Dataset test_split = read_cifar10(data_dir, Split::kTest);
  if (config.train_limit > 0 && config.train_limit < train_split.size()) {
    train_split.images = train_split.images.narrow(0, 0, config.train_limit);
    train_split.labels = train_split.labels.narrow(0, 0, config.train_limit);
  }
  const Normalization norm = resumed ? resumed->info.normalization : Normalization{};
  spdlog::info("data: {} ({} training, {} test images)", data_dir.string(), train_split.size(),
               test_split.size());
  const DeviceDataset train_data(train_split, device, norm, config.channels_last);
  const DeviceDataset test_data(test_split, device, norm, config.channels_last);

  // 5. Model and optimizer.
  torch::manual_seed(config.seed);
  Classifier model =
      resumed ? resumed->model : make_model(ModelOptions(model_name).stem(parse_stem(stem)));
  model->to(device);
  if (config.channels_last) to_channels_last(*model);
  spdlog::info("model: {} ({} parameters)", model_name, count_parameters(*model));
  Sgd optimizer(model->parameters(), SgdOptions(config.lr)
                                         .momentum(config.momentum)
                                         .nesterov(config.nesterov)
                                         .weight_decay(config.weight_decay));
  if (resumed) load_optimizer_state(*resumed, optimizer);

  // 6. Where to start.
  EpochSettings settings;
  settings.epochs = config.epochs;
  settings.batch_size = config.batch_size;
  settings.label_smoothing = config.label_smoothing;
  settings.amp = amp;
  settings.cuda_graph = config.cuda_graph && device.is_cuda();
  settings.progress_bar = config.progress_bar;
  settings.log_interval_s = config.log_interval_s;
  const int64_t steps_per_epoch =
      steps_in_epoch(train_data.size(), config.batch_size, settings.cuda_graph);
  settings.schedule = ScheduleOptions{parse_schedule(config.schedule), config.lr,
                                      config.warmup_epochs, config.epochs, steps_per_epoch};
  int64_t first_epoch = 1;
  int64_t global_step = 0;
  double best_accuracy = -1;
  if (resumed) {
    const auto& info = resumed->info;
    first_epoch = info.epoch + 1;
    settings.first_step = info.step_in_epoch;
    global_step = info.global_step;
    best_accuracy = info.best_accuracy;
    spdlog::info("resuming {} from epoch {} step {}", config.resume, first_epoch,
                 settings.first_step);
  }

  CheckpointInfo info;
  info.model = model_name;
  info.stem = stem;
  info.normalization = norm;
  info.class_names = train_split.class_names;
  info.config_toml = config_toml;
  info.libtorch_version = TORCH_VERSION;
  info.best_accuracy = best_accuracy;

  TrainResult result;
  result.model = model_name;
  result.device = device.str();
  result.class_names = train_split.class_names;
  result.run_dir = run_dir;
  result.checkpoint = checkpoint_path;
  result.best_checkpoint = run_dir / "best.pt";
  MetricsCsv csv(run_dir / "metrics.csv");
  InterruptGuard interrupt_guard;
  // The latest state goes to the run folder and to --checkpoint alike.
  auto save_latest = [&] {
    auto bytes = encode_checkpoint(info, *model, &optimizer);
    write_file_atomically(run_dir / "last.pt", bytes);
    write_file_atomically(checkpoint_path, bytes);
    return bytes;
  };

  // 7. The epochs.
  for (int64_t epoch = first_epoch; epoch <= config.epochs; ++epoch) {
    settings.epoch = epoch;
    settings.global_step = global_step;
    const EpochPlan plan =
        train_data.plan_epoch(/*shuffle=*/true, config.augment, config.seed, epoch);
    EpochStats stats;
    try {
      use_cpu_plan(device, cpu.threads, cpu.training_onednn);
      stats = train_one_epoch(*model, optimizer, train_data, plan, settings);
      use_cpu_plan(device, cpu.threads, /*onednn=*/true);
    } catch (const c10::Error& e) {
      rethrow_out_of_memory(e, "--batch-size", config.batch_size, model_name, device, amp);
      throw;
    }
    global_step += stats.steps - settings.first_step;

    if (stats.interrupted) {
      info.epoch = epoch - 1;
      info.step_in_epoch = stats.steps;
      info.global_step = global_step;
      info.test_accuracy = -1;
      save_latest();
      throw Interrupted(fmt::format(
          "interrupted (signal {}) in epoch {} after step {}: checkpoint written to {}; resume "
          "with: cifar-train --config {} --resume {}",
          stop_signal(), epoch, stats.steps, checkpoint_path.string(),
          (run_dir / "config.toml").string(), checkpoint_path.string()));
    }
    settings.first_step = 0;

    EpochTimer eval_timer(device);
    eval_timer.start();
    EvalResult eval;
    try {
      eval = evaluate(*model, test_data, config.eval_batch_size, amp);
    } catch (const c10::Error& e) {
      rethrow_out_of_memory(e, "--eval-batch-size", config.eval_batch_size, model_name, device,
                            amp);
      throw;
    }
    EpochMetrics m;
    m.epoch = epoch;
    m.train_loss = stats.loss;
    m.train_accuracy = stats.accuracy;
    m.test_loss = eval.loss;
    m.test_accuracy = eval.accuracy();
    m.lr = stats.last_lr;
    m.seconds = stats.seconds;
    m.images_per_second = stats.seconds > 0 ? static_cast<double>(stats.images) / stats.seconds : 0;
    m.eval_seconds = eval_timer.stop();
    m.peak_memory_bytes = stats.peak_memory_bytes;
    spdlog::info("{}", format_epoch_line(m, config.epochs));
    csv.write(m);
    result.history.push_back(m);
    result.final_eval = eval;

    info.epoch = epoch;
    info.step_in_epoch = 0;
    info.global_step = global_step;
    info.test_accuracy = m.test_accuracy;
    const bool best = m.test_accuracy > info.best_accuracy;
    if (best) info.best_accuracy = m.test_accuracy;
    const auto bytes = save_latest();
    if (best) write_file_atomically(result.best_checkpoint, bytes);
  }
  return result;
}

EvalReport evaluate_checkpoint(const EvalConfig& config) {
  if (config.batch_size < 1) {
    throw UsageError(fmt::format("--batch-size must be at least 1, got {}", config.batch_size));
  }
  const AmpMode amp = parse_amp(config.amp);
  const DeviceChoice choice = choose_device(config.device);
  if (!choice.fallback_warning.empty()) spdlog::warn("{}", choice.fallback_warning);
  LoadedCheckpoint checkpoint = load_checkpoint(config.checkpoint);
  const auto& info = checkpoint.info;
  spdlog::info("checkpoint: {} ({}, epoch {}, LibTorch {})", config.checkpoint, info.model,
               info.epoch, info.libtorch_version);
  const fs::path data_dir = resolve_data_dir(config.data_dir, std::getenv("CIFAR10_DIR"));
  const DeviceDataset test_data(read_cifar10(data_dir, Split::kTest), choice.device,
                                info.normalization);
  checkpoint.model->to(choice.device);
  EvalReport report;
  report.model = info.model;
  report.device = choice.device.str();
  report.class_names = info.class_names;
  try {
    report.result =
        evaluate(*checkpoint.model, test_data, config.batch_size, amp, info.num_classes);
  } catch (const c10::Error& e) {
    rethrow_out_of_memory(e, "--batch-size", config.batch_size, info.model, choice.device, amp);
    throw;
  }
  return report;
}

}  // namespace cifar
