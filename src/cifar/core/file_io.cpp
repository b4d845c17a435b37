// file_io.cpp: whole-file reads on POSIX, errors from errno (the writes:
// file_write.cpp).
#include "cifar/core/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cifar/core/names.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

fs::path parent_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// The first folder on the way to `path` that this process may not enter
// (no search permission), by its last component, or "" if none is found.
std::string blocked_folder(const fs::path& path) {
  fs::path dir;
  for (const auto& part : parent_of(path)) {
    dir /= part;
    if (::access(dir.c_str(), X_OK) != 0 && errno == EACCES) {
      return shown_name(dir.filename().empty() ? dir : dir.filename());
    }
  }
  return "";
}

}  // namespace

std::string dangling_link_note(const fs::path& path) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(path, ec);
  return ec ? ""
            : fmt::format(" (it is a symbolic link to {}, which is missing)", shown_name(target));
}

namespace {

[[noreturn]] void throw_stat_failure(const fs::path& path, int err, const std::string& what,
                                     const std::string& missing_hint) {
  if (err == ENOENT || err == ENOTDIR) {
    const std::string dangling = dangling_link_note(path);
    throw std::runtime_error(fmt::format("{} {} does not exist{}{}{}", what, shown_name(path),
                                         dangling, missing_hint.empty() ? "" : ": ", missing_hint));
  }
  if (err == EACCES) {
    const std::string folder = blocked_folder(path);
    throw std::runtime_error(fmt::format(
        "{} {}: permission denied{}; ask its owner for access (chmod a+rx on the folders, a+r "
        "on the file) or run as a user who may read it",
        what, shown_name(path),
        folder.empty() ? ""
                       : fmt::format(" (folder '{}' on that path cannot be entered)", folder)));
  }
  throw std::runtime_error(fmt::format("{} {}: {}", what, shown_name(path), errno_text(err)));
}

// " (it holds best.pt, last.pt, model.safetensors)": the model files in a
// folder given for a file (a run folder, most often), up to four; "" when
// it holds none.
std::string model_files_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    // (.bin left out: CIFAR's data files are named so)
    if ((ext == ".pt" || ext == ".pth" || ext == ".safetensors" || ext == ".ckpt") &&
        it->is_regular_file(ec)) {
      names.push_back(shown_name(it->path().filename()));
    }
  }
  if (names.empty()) return "";
  std::sort(names.begin(), names.end());
  return fmt::format(" (it holds {})", first_names(names, 4));
}

std::runtime_error not_regular(const fs::path& path, const std::string& what) {
  return std::runtime_error(
      fmt::format("{} {} is not a regular file (a device, FIFO or socket); pass a regular file",
                  what, shown_name(path)));
}

}  // namespace

uint64_t check_readable_file(const fs::path& path, const std::string& what,
                             const std::string& missing_hint) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw_stat_failure(path, errno, what, missing_hint);
  if (S_ISDIR(st.st_mode)) {
    throw std::runtime_error(
        fmt::format("{} {} is a directory, not a file; pass the file inside it{}", what,
                    shown_name(path), model_files_in(path)));
  }
  if (!S_ISREG(st.st_mode)) throw not_regular(path, what);
  if (::access(path.c_str(), R_OK) != 0 && errno == EACCES)
    throw_stat_failure(path, EACCES, what, "");
  return static_cast<uint64_t>(st.st_size);
}

void check_readable_directory(const fs::path& path, const std::string& what,
                              const std::string& missing_hint) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw_stat_failure(path, errno, what, missing_hint);
  if (!S_ISDIR(st.st_mode)) {
    throw std::runtime_error(fmt::format("{} {} is not a directory{}{}", what, shown_name(path),
                                         missing_hint.empty() ? "" : ": ", missing_hint));
  }
  if (::access(path.c_str(), X_OK) != 0 && errno == EACCES) {
    throw std::runtime_error(fmt::format(
        "{} {}: permission denied (the folder cannot be entered); ask its owner for access "
        "(chmod a+rx) or run as a user who may read it",
        what, shown_name(path)));
  }
}

int open_regular_file(const fs::path& path, const std::string& what,
                      const std::string& missing_hint) {
  check_readable_file(path, what, missing_hint);
  // O_NONBLOCK: open(2) of a FIFO without a writer would wait forever (and
  // a file swapped for one since the check above is caught below, on the
  // descriptor itself).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) throw_stat_failure(path, errno, what, missing_hint);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw not_regular(path, what);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_file(const fs::path& path, uint64_t max_bytes, const std::string& what,
                      const std::string& missing_hint) {
  const uint64_t size = check_readable_file(path, what, missing_hint);
  if (size > max_bytes) {
    throw std::runtime_error(fmt::format("{} {} is {} bytes, more than the {} a {} can be", what,
                                         shown_name(path), size, max_bytes, what));
  }
  return read_front(path, max_bytes + 1, what, missing_hint, /*whole=*/true);
}

std::string read_front(const fs::path& path, uint64_t max_bytes, const std::string& what,
                       const std::string& missing_hint, bool whole) {
  const int fd = open_regular_file(path, what, missing_hint);
  struct stat st {};
  const uint64_t size = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  std::string bytes;
  size_t done = 0;
  // Reads until end of file (or max_bytes), so a file that grows or shrinks
  // meanwhile is seen as it is.
  for (;;) {
    if (done == bytes.size()) {
      if (bytes.size() >= max_bytes) break;
      bytes.resize(std::min<uint64_t>(max_bytes, std::max<uint64_t>(size + 1, done + 65536)));
    }
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw std::runtime_error(
          fmt::format("reading {} {} failed: {}", what, shown_name(path), errno_text(err)));
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (whole && done >= max_bytes) {
    throw std::runtime_error(fmt::format("{} {} is more than the {} bytes a {} can be", what,
                                         shown_name(path), max_bytes - 1, what));
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace cifar
