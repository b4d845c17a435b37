// run_dir_lock.h: a run folder's lock. RunDirLock holds an exclusive
// flock(2) on <run-dir>/.cifar-train.lock for the run's lifetime (the kernel
// drops it when the process ends in any way, so it is never stale) and
// writes the holder's pid into it; run_dir_in_use and run_folder_in_use ask,
// without taking it, whether another run holds it now.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cifar {

class RunDirLock {
 public:
  // Creates `dir` if needed and locks it; throws std::runtime_error naming
  // the folder (and the pid holding it, when known) if another process does.
  explicit RunDirLock(const std::filesystem::path& dir);
  // Unless kept: the lock file goes if it made it (removed while still
  // held), then each folder it made, innermost first, each only while empty.
  ~RunDirLock();
  RunDirLock(const RunDirLock&) = delete;
  RunDirLock& operator=(const RunDirLock&) = delete;

  // The run's outputs opened: the folder and its lock file stay.
  void keep() { kept_ = true; }

 private:
  // The lock file of `dir` opened and locked (`made`: this call created it).
  static int locked_file(const std::filesystem::path& dir, bool& made);
  void remove_made_folders() const;

  int fd_ = -1;
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> made_;  // the folders made, innermost first
  bool made_lock_file_ = false;              // no run had locked the folder before
  bool kept_ = false;
};

inline constexpr const char* kRunDirLockFile = ".cifar-train.lock";

// "" unless another process holds `dir`'s RunDirLock now; then the message a
// RunDirLock would throw. Creates and writes nothing (a probe before a run
// is resolved: another run's folder is in use, not a usage error).
std::string run_dir_in_use(const std::filesystem::path& dir);

// Whether a cifar-train process holds the lock of run folder `dir` now.
bool run_folder_in_use(const std::filesystem::path& dir);

}  // namespace cifar
