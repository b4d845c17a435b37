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

namespace {
// The folders create_directories(dir) would make, innermost first.
std::vector<fs::path> missing_folders(const fs::path& dir) {
  std::vector<fs::path> missing;
  std::error_code ec;
  fs::path start = dir.lexically_normal();
  if (!start.has_filename()) start = start.parent_path();  // "new/run/": new/run, then new
  for (fs::path at = start; !at.empty() && !fs::exists(fs::symlink_status(at, ec));
       at = at.parent_path()) {
    missing.push_back(at);
    if (at == at.parent_path()) break;
  }
  return missing;
}

// Opens `lock` to lock it: never through a link, never a device, FIFO or
// hard link to another file. Throws naming `dir`.
int open_lock_file(const fs::path& dir, const fs::path& lock) {
  // O_NOFOLLOW: a link planted in its place must not make us truncate another file.
  int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  struct stat st {};
  const int err = fd < 0 ? errno : ::fstat(fd, &st) != 0 ? errno : 0;
  if (fd < 0 && err == ELOOP) {
    throw std::runtime_error(fmt::format(
        "cannot lock run folder {}: its lock file {} is a symbolic link, which cifar-train "
        "never follows; remove the link, or choose another --run-dir",
        dir.string(), lock.string()));
  }
  if (fd < 0 || err != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(
        fmt::format("cannot lock run folder {}: {}; choose a writable --run-dir", dir.string(),
                    std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {  // a device, a FIFO, or a hard link
    ::close(fd);
    throw std::runtime_error(fmt::format(
        "cannot lock run folder {}: its lock file {} is not a regular file of its own (a "
        "device, FIFO or hard link to another file); remove it, or "
        "choose another --run-dir",
        dir.string(), lock.string()));
  }
  return fd;
}

// flock(LOCK_EX) on `fd`, a few tries (run_dir_in_use's probe holds a shared
// lock for an instant); 0 or the error.
int lock_exclusive(int fd) {
  int err = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    err = ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
    if (err == EINTR) continue;  // interrupted: try again (a try of the five)
    if (err != EWOULDBLOCK) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return err;
}

// Whether `fd` is still the file at `lock`: a refused start removes its lock
// file while holding it, and a lock taken on the removed file is no lock.
bool still_the_lock_file(int fd, const fs::path& lock) {
  struct stat at_path {
  }, held{};
  return ::stat(lock.c_str(), &at_path) == 0 && ::fstat(fd, &held) == 0 &&
         at_path.st_dev == held.st_dev && at_path.st_ino == held.st_ino;
}
}  // namespace

RunDirLock::RunDirLock(const fs::path& dir) : dir_(dir), made_(missing_folders(dir)) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error(fmt::format(
        "cannot create directory {}: {}; choose a writable --run-dir", dir.string(), ec.message()));
  }
  try {
    fd_ = locked_file(dir, made_lock_file_);
  } catch (...) {
    remove_made_folders();  // a refused lock leaves no folder it made either
    throw;
  }
  // Ours now: say who holds it, for the message a second run prints.
  const std::string me = fmt::format("{}\n", ::getpid());
  // The pid is only for that message: if it cannot be written, the lock still holds.
  [[maybe_unused]] const bool written =
      ::ftruncate(fd_, 0) == 0 &&
      ::pwrite(fd_, me.data(), me.size(), 0) == static_cast<ssize_t>(me.size());
}

int RunDirLock::locked_file(const fs::path& dir, bool& made) {
  const fs::path lock = dir / kRunDirLockFile;
  std::error_code ec;
  for (int attempt = 0;; ++attempt) {
    made = !fs::exists(fs::symlink_status(lock, ec));
    const int fd = open_lock_file(dir, lock);
    if (const int err = lock_exclusive(fd); err != 0) {
      ::close(fd);
      if (err == EWOULDBLOCK) throw std::runtime_error(in_use_message(dir));
      throw std::runtime_error(
          fmt::format("cannot lock run folder {}: {}", dir.string(), std::strerror(err)));
    }
    if (still_the_lock_file(fd, lock)) return fd;
    ::close(fd);
    if (attempt == 4) {
      throw std::runtime_error(
          fmt::format("cannot lock run folder {}: its lock file {} keeps being removed by another "
                      "process; choose another --run-dir",
                      dir.string(), lock.string()));
    }
  }
}

void RunDirLock::remove_made_folders() const {
  for (const fs::path& folder : made_) {
    // Not empty: another's files stay; gone already ("new/run/" and "new/run"): on.
    if (::rmdir(folder.c_str()) != 0 && errno != ENOENT) break;
  }
}

RunDirLock::~RunDirLock() {
  if (fd_ < 0) return;
  if (!kept_ && made_lock_file_) {
    ::unlink((dir_ / kRunDirLockFile).c_str());  // while held: see still_the_lock_file
  }
  ::close(fd_);  // closing the last descriptor releases the flock
  if (!kept_) remove_made_folders();
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
