// run_dir.cpp: a run folder's files, the fresh-run check and checkpoint ownership notes
// (the folder's lock: run_dir_lock.cpp).
#include "cifar/io/run_dir.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string_view>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/formats/tensorboard.h"  // kEventFilePrefix
#include "cifar/formats/toml_text.h"
#include "cifar/io/checkpoint.h"

namespace cifar {
namespace fs = std::filesystem;

const std::vector<std::string>& run_result_files() {
  // plots.png: scripts/plot-run's drawing of the run, stale beside another.
  static const std::vector<std::string> files{"config.toml", "metrics.csv", "confusion.csv",
                                              "last.pt",     "best.pt",     "model.safetensors",
                                              "plots.png"};
  return files;
}

std::vector<std::string> results_in(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& name : run_result_files()) {
    if (fs::exists(fs::symlink_status(dir / name, ec))) found.push_back(name);
  }
  std::vector<std::string> events;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (std::string name = it->path().filename().string(); name.starts_with(kEventFilePrefix)) {
      events.push_back(std::move(name));
    }
  }
  std::ranges::sort(events);
  found.insert(found.end(), events.begin(), events.end());
  return found;
}

std::string listed_results(const std::vector<std::string>& names) {
  std::string list;
  size_t events = 0;
  for (const auto& name : names) {
    if (name.starts_with(kEventFilePrefix)) {
      ++events;
    } else {
      list += (list.empty() ? "" : ", ") + shown_name(name);
    }
  }
  if (events == 0) return list;
  return fmt::format("{}{}{} TensorBoard event file{}", list, list.empty() ? "" : ", ", events,
                     events == 1 ? "" : "s");
}

namespace {

// Removes the earlier run's results for --overwrite, returning their names.
std::vector<std::string> remove_results(const fs::path& dir,
                                        const std::vector<std::string>& found) {
  std::error_code ec;
  for (const auto& name : found) {
    fs::remove(dir / name, ec);
    if (ec) {
      throw std::runtime_error(fmt::format("--overwrite: cannot remove {} from run folder {}: {}",
                                           name, dir.string(), ec.message()));
    }
  }
  return found;
}

}  // namespace

std::string run_dir_refusal(const fs::path& dir, const std::optional<ResumedRun>& resumed) {
  if (!resumed) {
    const std::vector<std::string> found = results_in(dir);
    if (found.empty()) return "";
    // A run stopped before its first checkpoint has nothing to continue.
    const bool resumable = std::ranges::find(found, "last.pt") != found.end();
    return fmt::format(
        "--run-dir {} already holds another run's results ({}); {}choose another --run-dir, or "
        "pass --overwrite to replace them",
        dir.string(), listed_results(found),
        resumable ? fmt::format("continue that run with --config {} --resume {}, ",
                                shell_word((dir / "config.toml").string()),
                                shell_word((dir / "last.pt").string()))
                  : "that run stopped before its first checkpoint, so there is none to continue: ");
  }
  const ResumedDirProblem problem = resumed_run_dir_problem(dir, *resumed);
  if (problem.text.empty()) return "";
  return fmt::format(
      "{}; {}continue {} in a new folder with --run-dir NEW_DIR, or pass --overwrite to "
      "replace the results in {}",
      problem.text,
      problem.ahead ? fmt::format("continue the folder's run with --resume {}, ",
                                  shell_word((dir / "last.pt").string()))
                    : "",
      resumed->checkpoint, dir.string());
}

std::vector<std::string> clear_run_dir(const fs::path& dir,
                                       const std::optional<ResumedRun>& resumed) {
  if (run_dir_refusal(dir, resumed).empty()) return {};
  return remove_results(dir, results_in(dir));
}

std::string make_run_id(const fs::path& run_dir) {
  std::error_code ec;
  fs::path abs = fs::absolute(run_dir, ec);
  if (ec) abs = run_dir;
  const auto now = std::chrono::system_clock::now();
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{} started {}.{:06d}Z pid {}", abs.lexically_normal().string(), stamp,
                     us % 1000000, ::getpid());
}

std::optional<std::string> note_if_replacing_other_run(const fs::path& path,
                                                       const std::string& run_id) {
  std::optional<CheckpointInfo> info;
  try {
    info = peek_checkpoint_info(path);
  } catch (const std::runtime_error&) {
    return fmt::format("replacing {}, which is not a readable cifar-train checkpoint",
                       path.string());
  }
  if (!info || (!run_id.empty() && info->run_id == run_id)) return std::nullopt;
  std::string what = fmt::format("{}, epoch {}", info->model, info->epoch);
  if (info->step_in_epoch > 0) what += fmt::format(" and {} steps", info->step_in_epoch);
  if (info->test_accuracy >= 0) {
    what += fmt::format(", test accuracy {:.1f}%", 100 * info->test_accuracy);
  }
  // Where that run's model lives on: its run folder's best.pt, if it is
  // there and still that run's (a folder may be reused by another run).
  std::string kept;
  if (const fs::path folder = run_folder_of_id(info->run_id); !folder.empty()) {
    try {
      const auto best = peek_checkpoint_info(folder / "best.pt");
      if (best && best->run_id == info->run_id) {
        kept = fmt::format("; its run folder {} keeps that run's best.pt", folder.string());
      }
    } catch (const std::runtime_error&) {  // unreadable: nothing said of it
    }
  }
  return fmt::format("replacing {} ({}) written by another run{}", path.string(), what, kept);
}

std::string non_file_kind(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

std::optional<fs::path> run_folder_of(const fs::path& path) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir / kRunDirLockFile, ec))) return dir;
  try {  // the first line of every config.toml cifar-train writes
    const std::string front = read_front(dir / "config.toml", 64, "config.toml");
    if (front.starts_with("# cifar-train settings")) return dir;
  } catch (const std::runtime_error&) {
  }
  return std::nullopt;
}

fs::path run_folder_of_id(const std::string& run_id) {
  const auto at = run_id.rfind(" started ");
  return at == std::string::npos ? fs::path() : fs::path(run_id.substr(0, at));
}

namespace {
// The run folder that wrote a checkpoint: its settings' run-dir (a resumed
// run keeps its run id, which names the folder it started in), else the
// run id's folder (a checkpoint without settings).
fs::path writer_folder(const CheckpointInfo& info) {
  try {
    for (const TomlEntry& entry : read_flat_toml(info.config_toml)) {
      if (entry.key == "run-dir" && !entry.value.empty()) return entry.value;
    }
  } catch (const TomlError&) {  // unreadable settings: the run id's folder
  }
  return run_folder_of_id(info.run_id);
}
}  // namespace

std::string checkpoint_replace_problem(const fs::path& path, const std::string& option,
                                       const fs::path& run_dir) {
  // A checkpoint is cifar-train's own format: under a weights file's name a
  // Python reader would take it for one and fail ("header too large").
  if (const std::string ext = lower_case(path.extension().string());
      ext == ".safetensors" || ext == ".onnx") {
    return fmt::format(
        "{} {}: a checkpoint is cifar-train's own format, not {}: name it .pt (the run folder's "
        "model.safetensors holds the weights for Python; cifar-export writes them anywhere)",
        option, path.string(), path.extension().string());
  }
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return "";
  const std::string hint = fmt::format(
      "cifar-train replaces only its own checkpoints: choose another {}, or move it away "
      "yourself",
      option);
  if (const std::string kind = non_file_kind(path); !kind.empty()) {
    return fmt::format("{} {} is {}, not a checkpoint file; {}", option, path.string(), kind, hint);
  }
  if (const auto folder = run_folder_of(path); folder && !fs::equivalent(*folder, run_dir, ec)) {
    return fmt::format("{} {} is a file of run folder {}, another run's output{}; {}", option,
                       path.string(), folder->string(),
                       run_folder_in_use(*folder) ? " (that run is still training)" : "", hint);
  }
  std::optional<CheckpointInfo> info;
  try {
    info = peek_checkpoint_info(path);
  } catch (const std::runtime_error&) {
    const std::string front = read_front(path, sizeof(kCheckpointMagic), option);
    if (front == std::string(kCheckpointMagic, sizeof(kCheckpointMagic))) return "";  // damaged
    return fmt::format("{} {} is not a cifar-train checkpoint (it holds something else); {}",
                       option, path.string(), hint);
  }
  if (!info || info->run_id.empty()) return "";
  // Another run, or the same run resumed twice: the folder that wrote the
  // checkpoint is in use by a run that is not this one.
  const fs::path writer = writer_folder(*info);
  if (!writer.empty() && !fs::equivalent(writer, run_dir, ec) && run_folder_in_use(writer)) {
    return fmt::format(
        "{} {} is being written by another run, still training (run folder {}); "
        "two runs would replace each other's checkpoint at every epoch: choose "
        "another {}",
        option, path.string(), writer.string(), option);
  }
  return "";
}

std::vector<NamedFile> run_output_files(const fs::path& run_dir, const fs::path& checkpoint) {
  std::vector<NamedFile> files;
  for (const char* name : {"config.toml", "metrics.csv", "confusion.csv", "last.pt", "best.pt",
                           "model.safetensors", kRunDirLockFile}) {
    const std::string_view file = name;
    files.push_back({.role = fmt::format("the run's {}", name),
                     .path = run_dir / name,
                     .continues = file == "config.toml"                    ? kContinuedSettings
                                  : file == "last.pt" || file == "best.pt" ? kContinuedCheckpoint
                                                                           : ""});
  }
  files.push_back({.role = "--checkpoint", .path = checkpoint, .continues = kContinuedCheckpoint});
  return files;
}

RunDirClaim::RunDirClaim(const fs::path& parent, const std::string& model) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
  const auto fail = [](const fs::path& folder, const std::error_code& error) {
    return std::runtime_error(
        fmt::format("cannot create directory {}: {}; choose a writable --run-dir", folder.string(),
                    error.message()));
  };
  // mkdir(2) is atomic: of two runs asking for one name, one makes it and
  // the other goes on to the next. runs/ is made again if a refused start
  // took it away (empty) in between.
  for (int n = 1, tries = 0;; ++n) {
    std::error_code ec;
    made_parent_ = fs::create_directory(parent, ec) || made_parent_;
    if (ec) throw fail(parent, ec);
    dir_ = parent /
           (n == 1 ? fmt::format("{}-{}", stamp, model) : fmt::format("{}-{}-{}", stamp, model, n));
    if (::mkdir(dir_.c_str(), 0777) == 0) return;
    if (errno == ENOENT && ++tries < 5) {
      --n;  // the same name again
      continue;
    }
    if (errno != EEXIST) {
      const std::error_code error(errno, std::generic_category());
      if (made_parent_) ::rmdir(parent.c_str());
      throw fail(dir_, error);
    }
  }
}

RunDirClaim::~RunDirClaim() {
  // rmdir(2) removes only an empty folder: a run's files keep it.
  if (::rmdir(dir_.c_str()) == 0 && made_parent_) ::rmdir(dir_.parent_path().c_str());
}

}  // namespace cifar
