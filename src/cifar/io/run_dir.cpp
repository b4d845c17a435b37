// run_dir.cpp: run-folder lock, fresh-run check and checkpoint ownership notes.
#include "cifar/io/run_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "cifar/core/errors.h"
#include "cifar/io/checkpoint.h"

namespace cifar {
namespace fs = std::filesystem;

const std::vector<std::string>& run_result_files() {
  static const std::vector<std::string> files{"config.toml", "metrics.csv", "last.pt", "best.pt"};
  return files;
}

RunDirLock::RunDirLock(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error(fmt::format(
        "cannot create directory {}: {}; choose a writable --run-dir", dir.string(), ec.message()));
  }
  const fs::path lock = dir / kRunDirLockFile;
  // O_NOFOLLOW: a link planted in its place must not make us truncate another file.
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  struct stat st {};
  const int err = fd_ < 0 ? errno : ::fstat(fd_, &st) != 0 ? errno : 0;
  if (fd_ < 0 && err == ELOOP) {
    throw std::runtime_error(fmt::format(
        "cannot lock run folder {}: its lock file {} is a symbolic link, which cifar-train "
        "never follows; remove the link, or choose another --run-dir",
        dir.string(), lock.string()));
  }
  if (fd_ < 0 || err != 0) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(
        fmt::format("cannot lock run folder {}: {}; choose a writable --run-dir", dir.string(),
                    std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {  // a device, a FIFO, or a hard link
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(fmt::format(
        "cannot lock run folder {}: its lock file {} is not a regular file of its own (a "
        "device, FIFO or hard link to another file); remove it, or "
        "choose another --run-dir",
        dir.string(), lock.string()));
  }
  int rc;
  do {
    rc = ::flock(fd_, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int lock_err = errno;
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof(pid) - 1, 0);
    std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (lock_err == EWOULDBLOCK) {
      throw std::runtime_error(fmt::format(
          "run folder {} is in use by another cifar-train{}; wait for it to finish, or choose "
          "another --run-dir",
          dir.string(), holder.empty() ? "" : fmt::format(" (pid {})", holder)));
    }
    throw std::runtime_error(
        fmt::format("cannot lock run folder {}: {}", dir.string(), std::strerror(lock_err)));
  }
  // Ours now: say who holds it, for the message a second run prints.
  const std::string me = fmt::format("{}\n", ::getpid());
  // The pid is only for that message: if it cannot be written, the lock still holds.
  [[maybe_unused]] const bool written =
      ::ftruncate(fd_, 0) == 0 &&
      ::pwrite(fd_, me.data(), me.size(), 0) == static_cast<ssize_t>(me.size());
}

RunDirLock::~RunDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

std::vector<std::string> prepare_fresh_run_dir(const fs::path& dir, bool overwrite) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& name : run_result_files()) {
    if (fs::exists(fs::symlink_status(dir / name, ec))) found.push_back(name);
  }
  if (found.empty()) return found;
  std::string list;
  for (const auto& name : found) list += (list.empty() ? "" : ", ") + name;
  if (!overwrite) {
    throw UsageError(fmt::format(
        "--run-dir {} already holds another run's results ({}); continue that run with "
        "--config RUN_DIR/config.toml --resume RUN_DIR/last.pt, choose another --run-dir, or "
        "pass --overwrite to replace them",
        dir.string(), list));
  }
  for (const auto& name : found) {
    fs::remove(dir / name, ec);
    if (ec) {
      throw std::runtime_error(fmt::format("--overwrite: cannot remove {} from run folder {}: {}",
                                           name, dir.string(), ec.message()));
    }
  }
  return found;
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
  return fmt::format("replacing {} ({}) written by another run", path.string(), what);
}

}  // namespace cifar
