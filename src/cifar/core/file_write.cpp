// file_write.cpp: atomic writes on POSIX (core/file_io.h), errors from errno.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cifar/core/errors.h"
#include "cifar/core/file_io.h"
#include "cifar/core/names.h"

namespace cifar {
namespace fs = std::filesystem;

namespace {

// The folder a file is written in ("." for a bare name).
fs::path folder_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// The end of an error writing `path`: why (when its folder is the reason)
// and what to do, naming the option that chose the path.
std::string write_advice(const fs::path& path, int err, const std::string& option) {
  std::string why;
  std::error_code ec;
  if (err == ENOENT) {
    why = fs::is_directory(folder_of(path), ec)
              ? " (its folder does not accept new files)"
              : fmt::format(" (its folder {} does not exist)", shown_name(folder_of(path)));
  } else if (err == ENOTDIR) {
    why = " (a name on the way to it is a file, not a folder)";
  } else if (err == EPERM) {
    why =
        " (the file or its folder is immutable or append-only, as lsattr shows: chattr -i or -a "
        "lifts it)";
  }
  return why + "; " +
         (option.empty() ? std::string("choose another path, or make its folder writable")
                         : fmt::format("choose a writable {}", option));
}

}  // namespace

// A temporary file's name: "." + the name (its first kTempNameBytes) +
// kTempMark + kTempHexDigits random hex digits.
constexpr size_t kTempNameBytes = 64;
constexpr std::string_view kTempMark = ".tmp";
constexpr size_t kTempHexDigits = 8;

// A new temporary file beside `path`, named ".<name>.tmp<random>" with the
// name cut to 64 bytes, so that any name the folder accepts leaves room for
// it. Created exclusively: an existing file or a planted link is never
// followed or truncated. -1 with errno on failure.
int create_temp_beside(const fs::path& path, fs::path& tmp) {
  std::random_device rd;
  const std::string name = path.filename().string().substr(0, kTempNameBytes);
  for (int attempt = 0;; ++attempt) {
    tmp = folder_of(path) / fmt::format(".{}{}{:08x}", name, kTempMark, rd());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST || attempt == 8) return fd;
  }
}

std::string temp_file_target(std::string_view file_name) {
  const size_t mark = file_name.rfind(kTempMark);
  const bool temp = file_name.starts_with('.') && mark != std::string_view::npos && mark > 1 &&
                    file_name.size() == mark + kTempMark.size() + kTempHexDigits &&
                    file_name.find_first_not_of("0123456789abcdef", mark + kTempMark.size()) ==
                        std::string_view::npos;
  return temp ? std::string(file_name.substr(1, mark - 1)) : std::string();
}

void write_file_atomically(const fs::path& path, const std::string& bytes,
                           const std::string& option) {
  write_file_atomically(path, {std::span<const char>(bytes.data(), bytes.size())}, option);
}

void write_file_atomically(const fs::path& path, const std::vector<std::span<const char>>& pieces,
                           const std::string& option) {
  const fs::path dir = folder_of(path);
  fs::path tmp;
  const int fd = create_temp_beside(path, tmp);
  if (fd < 0) {
    const int err = errno;
    throw std::runtime_error(fmt::format("cannot write {}: {}{}", shown_name(path),
                                         std::strerror(err), write_advice(path, err, option)));
  }
  for (const std::span<const char> bytes : pieces) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        const auto why = std::strerror(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error(
            fmt::format("writing {} failed: {} (disk full?)", shown_name(path), why));
      }
      done += static_cast<size_t>(n);
    }
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const auto why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("flushing {} to disk failed: {}", shown_name(path), why));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const auto why = std::strerror(errno);
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
  const fs::path dir = folder_of(path);
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
    // An immutable or append-only file (chattr +i, +a) cannot be replaced:
    // found now, not when the first checkpoint is written. Opened to write,
    // not truncated: such a file refuses it with EPERM.
    if (exists && S_ISREG(st.st_mode)) {
      const int probe = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (probe >= 0) ::close(probe);
      if (probe < 0 && errno == EPERM) err = EPERM;
    }
    if (!exists && err == 0 && ::rename(tmp.c_str(), path.c_str()) == 0) {
      ::unlink(path.c_str());
    } else {
      if (!exists && err == 0) err = errno;
      ::unlink(tmp.c_str());
    }
  }
  if (err != 0) {
    throw std::runtime_error(fmt::format("cannot write {}: {}{}", shown_name(path),
                                         std::strerror(err), write_advice(path, err, option)));
  }
}

}  // namespace cifar
