// run_files.cpp: see run_files.h.
#include "cifar/resolve/run_files.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/data/dataset.h"
#include "cifar/data/image_folder.h"
#include "cifar/io/run_dir.h"
#include "cifar/report/run_outputs.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// Rank 0's finding or choice, had by every rank alike (a collective; one process: its
// own): the others stop with it, rather than read the data and fail in the
// next exchange.
std::string from_rank0(Distributed& dist, const std::string& text) {
  return dist.world_size() == 1 ? text : dist.all_gather_text(text).front();
}

// A resumed run's --run-dir that does not exist: said, since the run's
// history (metrics.csv, TensorBoard) starts there at the checkpoint's epoch;
// a warning when it is the resumed run's own folder, gone.
void note_new_resumed_folder(const fs::path& dir, const ModelSource& source) {
  std::error_code ec;
  if (!source.resumed || fs::exists(fs::symlink_status(dir, ec))) return;
  const int64_t next = source.resumed->info.epoch + 1;
  if (source.resumed_settings && !source.resumed_settings->run_dir.empty() &&
      absolute_path(source.resumed_settings->run_dir) == absolute_path(dir)) {
    spdlog::warn(
        "the resumed run's folder {} is gone: made again, its metrics.csv and TensorBoard "
        "history start at epoch {}",
        dir.string(), next);
    return;
  }
  spdlog::info("run folder: {}, new: its metrics.csv and TensorBoard history start at epoch {}",
               dir.string(), next);
}

// --run-dir; else, when resuming, the run folder the checkpoint's run wrote
// (its saved run-dir), so that a resumed run keeps one history: one
// metrics.csv, one TensorBoard run; else a new runs/<date>-<time>-<model>,
// made now (`claim`). Rank 0's choice: it alone writes the folder.
fs::path rank0_run_dir(const TrainConfig& config, const ModelSource& source,
                       std::shared_ptr<const RunDirClaim>& claim) {
  if (!config.run_dir.empty()) {
    note_new_resumed_folder(config.run_dir, source);
    return config.run_dir;
  }
  if (source.resumed_settings && !source.resumed_settings->run_dir.empty()) {
    const std::string& was = source.resumed_settings->run_dir;
    if (fs::is_directory(was)) {
      spdlog::info("run folder: {}, the resumed run's", was);
      return was;
    }
    spdlog::warn(
        "the resumed run's folder {} is gone: this run's history starts in a new folder "
        "(give --run-dir to choose it)",
        was);
  }
  claim = std::make_shared<const RunDirClaim>("runs", source.model_name);
  return claim->dir();
}

// rank0_run_dir, had by every rank (one collective, whatever the ranks'
// own settings and files say), or its refusal.
fs::path choose_run_dir(const TrainConfig& config, const ModelSource& source, Distributed& dist,
                        std::shared_ptr<const RunDirClaim>& claim) {
  if (dist.world_size() == 1) return rank0_run_dir(config, source, claim);
  constexpr std::string_view kRefused = "\x1frefused\x1f";  // no path starts so
  std::string sent;
  if (dist.is_main()) {
    try {
      sent = rank0_run_dir(config, source, claim).string();
    } catch (const std::exception& e) {
      sent = std::string(kRefused) + e.what();
    }
  }
  sent = from_rank0(dist, sent);
  if (sent.starts_with(kRefused)) throw std::runtime_error(sent.substr(kRefused.size()));
  return sent;
}

// --checkpoint's default: MODEL.pt for a data set (the tutorial's net.pt),
// DIR-MODEL.pt for an image folder DIR, so that a run on another folder
// does not replace it.
fs::path default_checkpoint(const TrainConfig& config, const std::string& model) {
  const std::optional<DatasetKind> kind = dataset_request(config.dataset);
  const bool folder =
      kind ? dataset_entry(*kind).image_files : has_image_folder_layout(config.data_dir);
  if (!folder) return model + ".pt";
  fs::path dir = absolute_path(config.data_dir);
  if (!dir.has_filename()) dir = dir.parent_path();  // "photos/"
  const std::string name = dir.filename().string();
  return name.empty() ? model + ".pt" : name + "-" + model + ".pt";
}

// --checkpoint; else, for a resumed run that goes on in its own run folder
// (`run_dir`, the one its config.toml saved), the file that run wrote (its
// saved checkpoint), so that it goes on in its own files and replaces no
// other run's model; else default_checkpoint. The run folder's check
// (resumed_run_dir.h) then holds for both: a copy resumed behind the run's
// own files is refused there. Resumed into another folder, or from a run
// whose checkpoint's folder is gone, a run writes the default.
fs::path choose_checkpoint(const TrainConfig& config, const ModelSource& source,
                           const fs::path& run_dir) {
  if (!config.checkpoint.empty()) return config.checkpoint;
  const fs::path fallback = default_checkpoint(config, source.model_name);
  if (!source.resumed_settings) return fallback;
  const TrainConfig& was = *source.resumed_settings;
  std::error_code ec;
  if (was.checkpoint.empty() || !fs::equivalent(run_dir, was.run_dir, ec)) return fallback;
  const fs::path saved = was.checkpoint;
  if (!fs::is_directory(saved.parent_path(), ec)) return fallback;
  return saved;
}

// A run resumed into a new folder whose --checkpoint (say, from the first
// folder's config.toml) is the file the run wrote in its first folder: it is
// replaced by this folder's run from now on, which is said (that folder's
// last.pt keeps where it stood).
void warn_if_fork_takes_checkpoint(const TrainConfig& config, const ModelSource& source,
                                   const RunFiles& files) {
  if (config.checkpoint.empty() || !source.resumed_settings) return;
  const TrainConfig& was = *source.resumed_settings;
  std::error_code ec;
  if (was.run_dir.empty() || fs::equivalent(files.run_dir, was.run_dir, ec) ||
      !fs::is_directory(was.run_dir, ec) || !fs::equivalent(files.checkpoint, was.checkpoint, ec)) {
    return;
  }
  spdlog::warn(
      "--checkpoint {} is the checkpoint of the run's folder {}, and this run goes on in {}: "
      "it will hold this folder's run from now on ({}/last.pt keeps where that folder stands); "
      "give another --checkpoint to keep both apart",
      files.checkpoint.string(), was.run_dir, files.run_dir.string(), was.run_dir);
}

// An output in one of an image folder's splits would be read as data by
// the next run (a run folder as a class folder, a checkpoint as an image):
// refused before it is written. One beside the splits (DIR/runs/, DIR/x.pt)
// is read by nothing; the run folder may not be the image folder itself.
void check_outside_data(const fs::path& output, const std::string& option,
                        const std::string& data_dir) {
  if (!has_image_folder_layout(data_dir)) return;
  std::error_code data_ec, out_ec;
  const fs::path data = fs::weakly_canonical(data_dir, data_ec);
  const fs::path out = fs::weakly_canonical(output, out_ec);
  if (data_ec || out_ec || data.empty()) return;
  const auto within = [&out](const fs::path& dir) {  // an empty dir (not resolved): no
    const auto [end, at] = std::mismatch(dir.begin(), dir.end(), out.begin(), out.end());
    return !dir.empty() && end == dir.end();
  };
  std::vector<std::string> splits{split_folder_name(Split::kTrain),
                                  split_folder_name(Split::kTest)};
  splits.insert(splits.end(), kValFolderNames.begin(), kValFolderNames.end());
  bool inside = out == data;
  for (const std::string& split : splits) {
    inside = inside || within(fs::weakly_canonical(data / split, data_ec));
  }
  if (!inside) return;
  throw UsageError(fmt::format(
      "{} {} is inside the image folder --data {}: the next run would read it as data (a class "
      "folder, a split or an image); choose a {} outside its splits",
      option, output.string(), data_dir, option));
}

// The run a --resume continues, for the run folder's check (resumed_run_dir.h).
std::optional<ResumedRun> resumed_run(const TrainConfig& config, const ModelSource& source,
                                      const fs::path& checkpoint) {
  if (!source.resumed) return std::nullopt;
  const CheckpointInfo& info = source.resumed->info;
  std::error_code ec;
  return ResumedRun{
      .run_id = info.run_id,
      .epochs = info.epoch,
      .step_in_epoch = info.step_in_epoch,
      .checkpoint = config.resume,
      .written_after_last = fs::equivalent(config.resume, checkpoint, ec),
      .trained_in = source.resumed_settings ? source.resumed_settings->run_dir : std::string()};
}

// Every file the run writes (the image cache too, which reading the data
// may write) against every file it reads, and (rank 0, which writes them)
// the run folder and --checkpoint (report/run_outputs.h), before anything is
// written; a folder another run is writing now is said first (that run's
// results are no reason to refuse these settings). The run --resume
// continues, if any.
std::optional<ResumedRun> checked_outputs(const TrainConfig& config, const ModelSource& source,
                                          const fs::path& run_dir, const fs::path& checkpoint,
                                          const std::vector<NamedFile>& inputs, Distributed& dist) {
  std::vector<NamedFile> outputs = run_output_files(run_dir, checkpoint);
  for (auto& file : dataset_output_files(config.data_dir, dataset_request(config.dataset))) {
    outputs.push_back(std::move(file));
  }
  if (const std::string problem = distinct_files_problem(inputs, outputs); !problem.empty()) {
    throw UsageError(problem);
  }
  std::optional<ResumedRun> resumed = resumed_run(config, source, checkpoint);
  const bool main_rank = dist.is_main();
  const std::string busy = from_rank0(dist, main_rank ? run_dir_in_use(run_dir) : "");
  if (!busy.empty()) throw std::runtime_error(busy);
  const std::string problem = from_rank0(
      dist,
      main_rank ? run_outputs_problem(run_dir, checkpoint, resumed, config.overwrite, inputs) : "");
  if (!problem.empty()) throw UsageError(problem);
  return resumed;
}

}  // namespace

std::vector<NamedFile> run_input_files(const TrainConfig& c) {
  std::vector<NamedFile> files;
  for (const fs::path& file : dataset_files(c.data_dir)) {
    files.push_back({"--data's " + file.filename().string(), file});
  }
  if (!c.init_weights.empty()) files.push_back({"--init-weights", c.init_weights});
  // Continued by the run's config.toml and checkpoints, which may replace
  // them (a resumed run goes on in its own files); no other output may.
  if (!c.config_file.empty()) {
    files.push_back({.role = "--config", .path = c.config_file, .continues = kContinuedSettings});
  }
  if (!c.resume.empty()) {
    files.push_back({.role = "--resume", .path = c.resume, .continues = kContinuedCheckpoint});
  }
  return files;
}

RunFiles resolve_run_files(const TrainConfig& config, const ModelSource& source,
                           Distributed& dist) {
  RunFiles files;
  files.run_dir = choose_run_dir(config, source, dist, files.claim);
  check_outside_data(files.run_dir, "--run-dir", config.data_dir);
  files.checkpoint = choose_checkpoint(config, source, files.run_dir);
  check_outside_data(files.checkpoint, "--checkpoint", config.data_dir);
  if (dist.is_main() && config.checkpoint.empty() && source.resumed) {
    spdlog::info(
        "checkpoint: {}{}", files.checkpoint.string(),
        source.resumed_settings && files.checkpoint == fs::path(source.resumed_settings->checkpoint)
            ? ", the resumed run's"
            : " (give --checkpoint to choose)");
  }
  if (dist.is_main()) warn_if_fork_takes_checkpoint(config, source, files);
  files.inputs = run_input_files(config);
  files.resumed =
      checked_outputs(config, source, files.run_dir, files.checkpoint, files.inputs, dist);
  return files;
}

}  // namespace cifar
