// file_io.cpp: whole-file reads and atomic writes on POSIX, errors from errno.
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

#include "cifar/core/errors.h"
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

// The end of an error writing `path`: why (when its folder is the reason)
// and what to do, naming the option that chose the path.
std::string write_advice(const fs::path& path, int err, const std::string& option) {
  std::string why;
  std::error_code ec;
  if (err == ENOENT) {
    why = fs::is_directory(parent_of(path), ec)
              ? " (its folder does not accept new files)"
              : fmt::format(" (its folder {} does not exist)", shown_name(parent_of(path)));
  } else if (err == ENOTDIR) {
    why = " (a name on the way to it is a file, not a folder)";
  }
  return why + "; " +
         (option.empty() ? std::string("choose another path, or make its folder writable")
                         : fmt::format("choose a writable {}", option));
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

[[noreturn]] void throw_stat_failure(const fs::path& path, int err, const std::string& what,
                                     const std::string& missing_hint) {
  if (err == ENOENT || err == ENOTDIR) {
    throw std::runtime_error(fmt::format("{} {} does not exist{}{}", what, shown_name(path),
                                         missing_hint.empty() ? "" : ": ", missing_hint));
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
    if ((ext == ".pt" || ext == ".pth" || ext == ".safetensors") && it->is_regular_file(ec)) {
      names.push_back(shown_name(it->path().filename()));
    }
  }
  if (names.empty()) return "";
  std::sort(names.begin(), names.end());
  return fmt::format(" (it holds {})", first_names(names, 4));
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
  if (!S_ISREG(st.st_mode)) {
    throw std::runtime_error(
        fmt::format("{} {} is not a regular file (a device, FIFO or socket); pass a regular file",
                    what, shown_name(path)));
  }
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
    throw std::runtime_error(
        fmt::format("{} {} is not a regular file (a device, FIFO or socket); pass a regular file",
                    what, shown_name(path)));
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

// A new temporary file beside `path`, named ".<name>.tmp<random>" with the
// name cut to 64 bytes, so that any name the folder accepts leaves room for
// it. Created exclusively: an existing file or a planted link is never
// followed or truncated. -1 with errno on failure.
int create_temp_beside(const fs::path& path, fs::path& tmp) {
  std::random_device rd;
  const std::string name = path.filename().string().substr(0, 64);
  for (int attempt = 0;; ++attempt) {
    tmp = parent_of(path) / fmt::format(".{}.tmp{:08x}", name, rd());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST || attempt == 8) return fd;
  }
}

void write_file_atomically(const fs::path& path, const std::string& bytes,
                           const std::string& option) {
  write_file_atomically(path, {std::span<const char>(bytes.data(), bytes.size())}, option);
}

void write_file_atomically(const fs::path& path, const std::vector<std::span<const char>>& pieces,
                           const std::string& option) {
  const fs::path dir = parent_of(path);
  fs::path tmp;
  const int fd = create_temp_beside(path, tmp);
  if (fd < 0) {
    const int err = errno;
    throw std::runtime_error(fmt::format("cannot write {}: {}{}", shown_name(path), errno_text(err),
                                         write_advice(path, err, option)));
  }
  for (const std::span<const char> bytes : pieces) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        const auto why = errno_text(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error(
            fmt::format("writing {} failed: {} (disk full?)", shown_name(path), why));
      }
      done += static_cast<size_t>(n);
    }
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const auto why = errno_text(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("flushing {} to disk failed: {}", shown_name(path), why));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const auto why = errno_text(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot replace {}: {}", shown_name(path), why));
  }
  // Make the rename itself durable.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void ensure_writable(const fs::path& path, const std::string& option, bool make_folder) {
  const fs::path dir = parent_of(path);
  std::error_code ec;
  if (make_folder) fs::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error(fmt::format("cannot create directory {}: {}{}", shown_name(dir),
                                         ec.message(), write_advice(path, 0, option)));
  }
  if (fs::is_directory(path, ec)) {
    // Named by the option that chose it (issue 47: "--csv DIR" was told
    // about a checkpoint name).
    const std::string example = option == "--csv"   ? "predictions.csv"
                                : option == "--out" ? "model.safetensors"
                                                    : "net.pt";
    throw UsageError(fmt::format("{}{} is a folder, not a file: name a file inside it ({})",
                                 option.empty() ? "" : option + " ", shown_name(path),
                                 shown_name(path / example)));
  }
  // The names really used: the temporary file write_file_atomically makes,
  // renamed to `path` when nothing is there yet (then removed again).
  fs::path tmp;
  const int fd = create_temp_beside(path, tmp);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    ::close(fd);
    struct stat st {};
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    err = exists || errno == ENOENT ? 0 : errno;
    if (!exists && err == 0 && ::rename(tmp.c_str(), path.c_str()) == 0) {
      ::unlink(path.c_str());
    } else {
      if (!exists && err == 0) err = errno;
      ::unlink(tmp.c_str());
    }
  }
  if (err != 0) {
    throw std::runtime_error(fmt::format("cannot write {}: {}{}", shown_name(path), errno_text(err),
                                         write_advice(path, err, option)));
  }
}

}  // namespace cifar
