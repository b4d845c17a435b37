// resumed_run_dir.cpp: whether a run folder is a resumed run's own.
#include "cifar/io/resumed_run_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cifar/core/file_io.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/run_dir.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// "at the end of epoch 3", "in epoch 2 after step 40": a checkpoint's position.
std::string position(int64_t epochs, int64_t step_in_epoch) {
  return step_in_epoch > 0 ? fmt::format("in epoch {} after step {}", epochs + 1, step_in_epoch)
                           : fmt::format("at the end of epoch {}", epochs);
}

// What a run folder holds, for a message: "run \"ID\": last.pt at the end of
// epoch 3, metrics.csv epochs 1-3". `name`: the checkpoint `last` is.
std::string folder_run(const std::optional<CheckpointInfo>& last, const std::string& name,
                       const std::vector<int64_t>& epochs) {
  std::string out = last ? fmt::format("run \"{}\": {} {}", last->run_id, name,
                                       position(last->epoch, last->step_in_epoch))
                         : std::string("no last.pt");
  if (!epochs.empty()) {
    out += fmt::format(", metrics.csv epochs {}-{}", std::ranges::min(epochs),
                       std::ranges::max(epochs));
  }
  return out;
}

// Whether two paths name one folder (false when either is missing).
bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

}  // namespace

// The epochs of metrics.csv's whole rows (a last line without its newline,
// which a kill cut short, is left out); none when there is no file.
std::vector<int64_t> metrics_epochs(const fs::path& dir) {
  std::vector<int64_t> epochs;
  std::string text;
  try {
    text = read_file(dir / "metrics.csv", uint64_t{1} << 30, "the run's metrics.csv");
  } catch (const std::runtime_error&) {
    return epochs;
  }
  const size_t header_end = text.find('\n');
  for (size_t at = header_end == std::string::npos ? text.size() : header_end + 1;
       at < text.size();) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) break;
    int64_t epoch = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + end, epoch);
    if (ec == std::errc() && ptr != text.data() + end && *ptr == ',') epochs.push_back(epoch);
    at = end + 1;
  }
  return epochs;
}

// Why `dir`'s metrics.csv is no file to append to ("" when it is missing,
// empty or starts with the header): its first line, shown.
std::string foreign_metrics(const fs::path& dir) {
  std::string text;
  try {
    text = read_file(dir / "metrics.csv", uint64_t{1} << 30, "the run's metrics.csv");
  } catch (const std::runtime_error&) {
    return "";  // none (a read that fails again when the run opens it says why)
  }
  if (text.empty() || text.starts_with(kMetricsCsvFirstColumns)) return "";
  std::string first = text.substr(0, std::min(text.find('\n'), size_t{60}));
  for (char& c : first) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return fmt::format(
      "--run-dir {} holds a metrics.csv that cifar-train did not write (it starts "
      "'{}', not its header 'epoch,train_loss,...'), which the resumed run would "
      "append to",
      dir.string(), first);
}

ResumedDirProblem resumed_run_dir_problem(const fs::path& dir, const ResumedRun& run) {
  const std::vector<std::string> found = results_in(dir);
  if (found.empty()) return {};
  const std::string resumed = fmt::format("run \"{}\", {} {}", run.run_id, run.checkpoint,
                                          position(run.epochs, run.step_in_epoch));
  std::optional<CheckpointInfo> last;
  try {
    last = peek_checkpoint_info(dir / "last.pt");
  } catch (const std::runtime_error&) {
    return {
        fmt::format("--run-dir {} holds results ({}) whose last.pt is not a readable "
                    "checkpoint, not provably those of the run being resumed ({})",
                    dir.string(), listed_results(found), resumed)};
  }
  if (std::string foreign = foreign_metrics(dir); !foreign.empty()) return {foreign};
  const std::vector<int64_t> epochs = metrics_epochs(dir);
  std::optional<CheckpointInfo> best;
  try {
    best = peek_checkpoint_info(dir / "best.pt");
  } catch (const std::runtime_error&) {
    return {fmt::format("--run-dir {}'s best.pt is not a readable checkpoint", dir.string())};
  }
  // A run that stopped before its first epoch ended (the resumed run itself,
  // failed once) left no checkpoint and no row: nothing there to lose.
  if (!last && !best && epochs.empty()) return {};
  // best.pt is written before last.pt: a kill between the two in the first
  // epoch leaves best.pt alone, the folder's newest checkpoint.
  const std::string name = last ? "last.pt" : "best.pt";
  if (!last) last = best;
  const std::string holds = folder_run(last, name, epochs);
  if (!last || run.run_id.empty() || last->run_id != run.run_id) {
    return {.text = fmt::format("--run-dir {} holds another run's results ({}; {}), not those "
                                "of the run being resumed ({})",
                                dir.string(), listed_results(found), holds, resumed),
            .own_checkpoint = last ? name : ""};
  }
  if (best && best->run_id != run.run_id) {
    return {fmt::format(
        "--run-dir {} mixes two runs: its best.pt is run \"{}\"'s, its last.pt the run being "
        "resumed ({})",
        dir.string(), best->run_id, resumed)};
  }
  // How far the folder may be ahead of the checkpoint: the kill windows.
  const auto limit = run.written_after_last ? std::pair{run.epochs + 1, int64_t{0}}
                                            : std::pair{run.epochs, run.step_in_epoch};
  const bool last_ahead = std::pair{last->epoch, last->step_in_epoch} > limit;
  const bool rows_ahead = !epochs.empty() && std::ranges::max(epochs) > run.epochs + 1;
  if (last_ahead || rows_ahead) {
    return {.text = fmt::format("--run-dir {} holds the run being resumed further than {} is "
                                "({}; {}): going on from it would drop the later epochs' rows "
                                "and replace last.pt",
                                dir.string(), run.checkpoint,
                                position(run.epochs, run.step_in_epoch), holds),
            .ahead = true};
  }
  // Behind the checkpoint: the epochs between were trained in another folder.
  // (Not when best.pt is as far: a kill between its write and last.pt's
  // leaves last.pt an epoch behind, and best.pt goes on from there.)
  const std::pair<int64_t, int64_t> newest = std::max(
      std::pair{last->epoch, last->step_in_epoch},
      best ? std::pair{best->epoch, best->step_in_epoch} : std::pair<int64_t, int64_t>{0, 0});
  if (newest < std::pair{run.epochs, run.step_in_epoch}) {
    const bool elsewhere = !run.trained_in.empty() && !same_folder(run.trained_in, dir);
    return {fmt::format(
        "--run-dir {} holds the run being resumed behind {} ({}; {} {}{}): going on here would "
        "leave the epochs between out of its metrics.csv",
        dir.string(), run.checkpoint, holds, run.checkpoint,
        position(run.epochs, run.step_in_epoch),
        elsewhere ? fmt::format(", trained on in {}: --run-dir {} goes on there", run.trained_in,
                                run.trained_in)
                  : std::string())};
  }
  return {};
}

}  // namespace cifar
