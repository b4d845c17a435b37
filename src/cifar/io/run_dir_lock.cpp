// run_dir_lock.cpp: a run folder's lock, and the probe that asks whether
// another run holds it (run_dir_lock.h).
#include "cifar/io/run_dir_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "cifar/core/file_io.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {
// "run folder run is in use by another cifar-train (pid 123); ...": the pid
// is the lock file's text (RunDirLock writes it), left out when unreadable.
std::string in_use_message(const fs::path& dir) {
  std::string holder;
  try {
    holder = read_front(dir / kRunDirLockFile, 31, "the run folder's lock file");
  } catch (const std::runtime_error&) {
  }
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
  return fmt::format(
      "run folder {} is in use by another cifar-train{}; wait for it to finish, or choose "
      "another --run-dir",
      dir.string(), holder.empty() ? "" : fmt::format(" (pid {})", holder));
}
}  // namespace

std::string run_dir_in_use(const fs::path& dir) {
  return run_folder_in_use(dir) ? in_use_message(dir) : "";
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
  // A few tries: run_dir_in_use's probe holds a shared lock for an instant.
  int lock_err = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    lock_err = ::flock(fd_, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
    if (lock_err == EINTR) continue;  // interrupted: try again (a try of the five)
    if (lock_err != EWOULDBLOCK) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (lock_err != 0) {
    ::close(fd_);
    fd_ = -1;
    if (lock_err == EWOULDBLOCK) throw std::runtime_error(in_use_message(dir));
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

bool run_folder_in_use(const fs::path& dir) {
  const fs::path lock = dir / kRunDirLockFile;
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the shared lock, if taken
  return held;
}

}  // namespace cifar
