// checkpoint_owner.cpp: whose a checkpoint file is, from its header and the
// run folder it names; whether a run may replace it.
#include "cifar/io/checkpoint_owner.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "cifar/core/file_io.h"
#include "cifar/core/names.h"
#include "cifar/formats/toml_text.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/run_dir.h"  // is_cifar_train_settings
#include "cifar/io/run_dir_lock.h"

namespace cifar {
namespace fs = std::filesystem;
namespace {

// A setting the checkpoint's run saved (its config.toml's `key`); none in an
// older header, or one whose settings do not read.
std::optional<TomlEntry> saved_setting(const CheckpointInfo& info, std::string_view key) {
  try {
    for (TomlEntry& entry : read_flat_toml(info.config_toml)) {
      if (entry.key == key) return std::move(entry);
    }
  } catch (const TomlError&) {  // unreadable settings: none
  }
  return std::nullopt;
}

// The run folder that wrote a checkpoint: its settings' run-dir (a resumed
// run keeps its run id, which names the folder it started in), else the
// run id's folder (a checkpoint without settings).
fs::path writer_folder(const CheckpointInfo& info) {
  const auto run_dir = saved_setting(info, "run-dir");
  return run_dir && !run_dir->value.empty() ? fs::path(run_dir->value)
                                            : run_folder_of_id(info.run_id);
}

// The epochs a checkpoint's run was to train (its config.toml's), 0 when
// unknown.
int64_t planned_epochs(const CheckpointInfo& info) {
  const auto epochs = saved_setting(info, "epochs");
  int64_t value = 0;
  if (epochs && epochs->type == TomlType::kInteger) {
    std::from_chars(epochs->value.data(), epochs->value.data() + epochs->value.size(), value);
  }
  return value;
}

// Whether the checkpoint's run stopped before its planned end.
bool unfinished(const CheckpointInfo& info) {
  return info.step_in_epoch > 0 || info.epoch < planned_epochs(info);
}

}  // namespace

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
  // A run that stopped before its end goes on from the last.pt of the folder
  // it was writing to (a resumed run's may not be the one it started in).
  if (const fs::path folder = writer_folder(*info); !folder.empty() && unfinished(*info)) {
    try {
      const auto last = peek_checkpoint_info(folder / "last.pt");
      if (last && last->run_id == info->run_id) {
        const int64_t planned = planned_epochs(*info);
        kept += fmt::format(
            "; that run stopped {} epoch {}{}: go on with it with --config {} --resume {} "
            "--checkpoint NEW.pt (its config.toml names this file, now this run's)",
            info->step_in_epoch > 0 ? "in" : "after",
            info->epoch + (info->step_in_epoch > 0 ? 1 : 0),
            planned > 0 ? fmt::format(" of {}", planned) : "",
            shell_word((folder / "config.toml").string()),
            shell_word((folder / "last.pt").string()));
      }
    } catch (const std::runtime_error&) {  // unreadable: nothing said of it
    }
  }
  return fmt::format("replacing {} ({}) written by another run{}", path.string(), what, kept);
}

std::string non_file_kind(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);  // a link to nothing, or a loop
    if (ec) return "";
    return err == ENOENT || err == ENOTDIR
               ? fmt::format("a symbolic link to {}, which is missing", shown_name(target))
               : fmt::format("a symbolic link to {}, which cannot be followed ({})",
                             shown_name(target), std::strerror(err));
  }
  if (S_ISREG(st.st_mode)) return "";
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
  if (is_cifar_train_settings(dir / "config.toml")) return dir;
  return std::nullopt;
}

fs::path run_folder_of_id(const std::string& run_id) {
  const auto at = run_id.rfind(" started ");
  return at == std::string::npos ? fs::path() : fs::path(run_id.substr(0, at));
}

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

}  // namespace cifar
