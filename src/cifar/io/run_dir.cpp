// run_dir.cpp: a run folder's name and files, and the fresh-run check (the
// folder's lock: run_dir_lock.cpp; whose a checkpoint is: checkpoint_owner.cpp).
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

bool is_cifar_train_settings(const fs::path& path) {
  try {  // the first line of every config.toml cifar-train writes
    return read_front(path, 64, "config.toml").starts_with("# cifar-train settings");
  } catch (const std::runtime_error&) {
    return false;
  }
}

std::vector<std::string> failed_start_leftovers(const fs::path& dir) {
  const std::vector<std::string> found = results_in(dir);
  const auto kept = [](const std::string& name) {  // a file a completed epoch writes
    return name != "config.toml" && name != "metrics.csv" && !name.starts_with(kEventFilePrefix);
  };
  if (found.empty() || std::ranges::any_of(found, kept)) return {};
  if (!metrics_epochs(dir).empty() || !foreign_metrics(dir).empty()) return {};
  if (std::ranges::find(found, "config.toml") != found.end() &&
      !is_cifar_train_settings(dir / "config.toml")) {
    return {};
  }
  return found;
}

std::string run_dir_refusal(const fs::path& dir, const std::optional<ResumedRun>& resumed) {
  if (!resumed) {
    const std::vector<std::string> found = results_in(dir);
    if (found.empty() || !failed_start_leftovers(dir).empty()) return "";
    // A run stopped before its first checkpoint has nothing to continue; one
    // killed between its first best.pt and last.pt goes on from best.pt.
    const auto has = [&](const char* name) {
      return std::ranges::find(found, name) != found.end();
    };
    const char* newest = has("last.pt") ? "last.pt" : "best.pt";
    const bool resumable = has(newest);
    return fmt::format(
        "--run-dir {} already holds another run's results ({}); {}choose another --run-dir, or "
        "pass --overwrite to replace them",
        dir.string(), listed_results(found),
        resumable ? fmt::format("continue that run with --config {} --resume {}, ",
                                shell_word((dir / "config.toml").string()),
                                shell_word((dir / newest).string()))
                  : "that run stopped before its first checkpoint, so there is none to continue: ");
  }
  const ResumedDirProblem problem = resumed_run_dir_problem(dir, *resumed);
  if (problem.text.empty()) return "";
  return fmt::format(
      "{}; {}continue {} in a new folder with --run-dir NEW_DIR, or pass --overwrite to "
      "replace the results in {}",
      problem.text,
      problem.ahead ? fmt::format("continue the folder's own run with --resume {}, ",
                                  shell_word((dir / "last.pt").string()))
      : !problem.own_checkpoint.empty()
          ? fmt::format("continue the folder's own run with --config {} --resume {} --checkpoint "
                        "NEW.pt, ",
                        shell_word((dir / "config.toml").string()),
                        shell_word((dir / problem.own_checkpoint).string()))
          : "",
      resumed->checkpoint, dir.string());
}

std::vector<std::string> clear_run_dir(const fs::path& dir,
                                       const std::optional<ResumedRun>& resumed) {
  if (run_dir_refusal(dir, resumed).empty()) return {};
  return remove_results(dir, results_in(dir));
}

std::vector<std::string> clear_failed_start(const fs::path& dir) {
  return remove_results(dir, failed_start_leftovers(dir));
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
