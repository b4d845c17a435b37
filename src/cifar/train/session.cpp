// session.cpp: model, parameter groups and position of a training run.
#include "cifar/train/session.h"

#include <spdlog/spdlog.h>

#include "cifar/core/version.h"
#include "cifar/io/run_dir.h"
#include "cifar/model/model_body.h"
#include "cifar/model/model_registry.h"
#include "cifar/platform/guards.h"
#include "cifar/train/fine_tune.h"

namespace cifar {
namespace {

// A fresh model that sets something from the data (its entry's
// init_from_images) gets the first n training images, in order.
void init_from_images(ClassifierImpl& model, const ModelEntry& entry, const DeviceDataset& train,
                      int64_t n) {
  if (entry.init_from_images == nullptr || n <= 0) return;
  const EpochPlan in_order = train.plan_epoch(/*shuffle=*/false, /*augment=*/false, 0, 0);
  const Batch first = train.batch(in_order, 0, std::min(n, train.size()));
  entry.init_from_images(model, first.images);  // (n, 3, S, S) float
}

// What a fine-tune trains, for the log.
std::string fine_tune_note(const FineTuneSpec& fine_tune, const ModelEntry& entry) {
  if (fine_tune.freeze_body) {
    return "--freeze-body: only the head (" + entry.head +
           ") trains, the body's weights and batch-norm statistics stay as loaded";
  }
  std::string note;
  if (!fine_tune.train_from.empty()) {
    note = "--train-from " + fine_tune.train_from +
           ": the modules before it keep their weights and batch-norm statistics as loaded";
  }
  if (fine_tune.body_lr_scale != 1) {
    note +=
        fmt::format("{}--body-lr-scale {:g}", note.empty() ? "" : "; ", fine_tune.body_lr_scale);
  }
  return note;
}

EpochPosition start_position(const RunSpec& spec, int64_t world_size) {
  const ModelSource& source = spec.source;
  const int64_t epochs = spec.loop.epochs;
  if (!source.resumed) {
    return {.epoch = 1, .epochs = epochs, .first_step = 0, .global_step = 0, .so_far = {}};
  }
  const CheckpointInfo& was = source.resumed->info;
  spdlog::info("resuming {} from epoch {} step {}", spec.session.resume, was.epoch + 1,
               was.step_in_epoch);
  if (was.world_size != world_size) {
    spdlog::info(
        "note: {} was trained by {} process(es), this run has {}: the global batch stays {}, so "
        "each step takes the same samples as before (split {} ways now)",
        spec.session.resume, was.world_size, world_size, spec.loop.batch_size, world_size);
  }
  return {.epoch = was.epoch + 1,
          .epochs = epochs,
          .first_step = was.step_in_epoch,
          .global_step = was.global_step,
          .so_far = was.epoch_so_far};
}

// What a checkpoint stores under "optimizer": the groups' momentum buffers,
// and beside them "grad_scaler" (the scale and growth tracker) under --amp
// fp16 only and each extension's state when it is on, so the checkpoints of
// other runs keep their layout.
class TrainState final : public Stateful {
 public:
  TrainState(ParamGroups& groups, GradScaler& scaler, Extensions& extensions)
      : groups_(groups), scaler_(scaler), extensions_(extensions) {}
  void save(torch::serialize::OutputArchive& archive) const override {
    groups_.save(archive);
    scaler_.save(archive);
    extensions_.save(archive);
  }
  void load(torch::serialize::InputArchive& archive) override {
    groups_.load(archive);
    extensions_.load(archive);
    if (!scaler_.enabled()) return;
    if (scaler_.try_load(archive)) {
      spdlog::info("loss scale {:g} continued ({} good steps since its last change)",
                   scaler_.scale_value(), scaler_.growth_tracker());
    } else {
      spdlog::info(
          "the checkpoint holds no loss scale (it was not trained with --amp fp16): the scale "
          "starts at {:g}",
          scaler_.scale_value());
    }
  }

 private:
  ParamGroups& groups_;
  GradScaler& scaler_;
  Extensions& extensions_;
};

// The fixed part of every checkpoint header of this run.
CheckpointInfo checkpoint_info(const RunSpec& spec) {
  CheckpointInfo info;
  info.model = spec.source.model_name;
  info.stem = to_string(spec.source.stem);
  info.normalization = spec.source.normalization;
  info.class_names = spec.data.class_names;
  info.num_classes = static_cast<int64_t>(spec.data.class_names.size());
  info.dataset = spec.dataset;
  info.config_toml = spec.paths.record.toml();
  info.libtorch_version = libtorch_version();
  return info;
}

}  // namespace

std::string TrainingSession::checkpoint_bytes() const {
  const TrainState state(*groups, *scaler, *extensions);
  return encode_checkpoint(info, shown_model(), &state);
}

ClassifierImpl& TrainingSession::shown_model() const {
  return extensions->shown_model(*model);
}

TrainingSession make_session(const RunSpec& spec, Distributed& dist, const torch::Device& device) {
  const SessionSpec& settings = spec.session;
  const FineTuneSpec& fine_tune = settings.fine_tune;
  const Recipe& recipe = spec.recipe;
  const EpochShape& shape = spec.shape;
  const SeedGuard seed(spec.loop.seed);
  TrainingSession s;
  s.model = spec.source.fresh() ? build_fresh(spec.source) : spec.source.model;
  s.model->to(device);
  if (settings.channels_last) to_channels_last(*s.model);
  const ModelEntry& entry = model_entry(spec.source.model_name);
  if (spec.source.fresh()) init_from_images(*s.model, entry, spec.data.train, recipe.init_images);
  spdlog::info("model: {} ({} parameters), recipe {}", spec.source.model_name,
               count_parameters(*s.model), recipe.name);

  std::vector<std::shared_ptr<torch::nn::Module>> held_in_eval;  // frozen batch norms
  if (fine_tune.freeze_body) {
    freeze_body(*s.model, entry);
    held_in_eval = body_statistics_modules(*s.model, entry);
  }
  if (!fine_tune.train_from.empty()) {
    held_in_eval = freeze_before(*s.model, fine_tune.train_from);
  }
  if (fine_tune.bn_momentum > 0) {
    const int64_t layers = set_batch_norm_momentum(*s.model, fine_tune.bn_momentum);
    spdlog::info("--bn-momentum {:g}: {} batch-norm layers", fine_tune.bn_momentum, layers);
  }
  s.groups = std::make_unique<ParamGroups>(
      fine_tune_groups(recipe, *s.model, shape.steps, entry, fine_tune.body_lr_scale));
  check_covers(*s.groups, *s.model);
  if (fine_tune.any()) {
    spdlog::info("{}: parameter groups {}", fine_tune_note(fine_tune, entry), s.groups->describe());
  }
  spdlog::debug("parameter groups: {}", s.groups->describe());
  s.scaler = std::make_unique<GradScaler>(spec.precision.loss_scaling, device);
  s.extensions = std::make_unique<Extensions>(
      ExtensionContext{.ema = settings.ema, .model = *s.model, .build = [&spec] {
                         const GeneratorStateGuard same_stream;  // draws nothing from the run's
                         return build_fresh(spec.source);
                       }});
  if (spec.source.resumed) {
    TrainState state(*s.groups, *s.scaler, *s.extensions);
    load_optimizer_state(*spec.source.resumed, state);
  }
  s.groups->freeze_done(spec.source.resumed ? spec.source.resumed->info.global_step : 0);
  dist.broadcast_module(*s.model);
  s.averager = std::make_unique<GradientAverager>(dist, s.model->parameters());
  s.learner = std::make_unique<Learner>(Learner{.model = *s.model,
                                                .groups = *s.groups,
                                                .dist = dist,
                                                .averager = *s.averager,
                                                .scaler = *s.scaler});
  s.learner->held_in_eval = std::move(held_in_eval);

  s.position = start_position(spec, dist.world_size());
  s.info = checkpoint_info(spec);
  s.info.world_size = dist.world_size();
  s.info.train_images = spec.data.train.size();
  s.info.train_fingerprint = spec.train_fingerprint;
  s.info.tta = spec.loop.tta;
  s.info.image = spec.source.image;
  s.info.prep = spec.source.prep;
  const bool keeps_id = spec.source.resumed && !spec.source.resumed->info.run_id.empty();
  s.info.run_id = keeps_id ? spec.source.resumed->info.run_id : make_run_id(spec.paths.run_dir);
  if (spec.source.resumed) s.info.best_accuracy = spec.source.resumed->info.best_accuracy;
  return s;
}

}  // namespace cifar
