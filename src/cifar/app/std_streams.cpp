// std_streams.cpp: descriptors 0-2 kept open, and standard output's errors seen.
#include "cifar/app/std_streams.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace cifar {

void open_closed_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // The lowest free descriptor is `fd` itself, as the ones below are open.
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened >= 0 && opened != fd) {
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

void check_stdout_written(const char* what) {
  errno = 0;
  std::cout.flush();
  const bool stream_failed = !std::cout;
  int err = errno;
  if (std::fflush(stdout) != 0) {
    err = errno;
  } else if (!stream_failed && std::ferror(stdout) == 0) {
    return;
  }
  std::clearerr(stdout);
  std::cout.clear();
  throw std::runtime_error(fmt::format(
      "cannot write {} to standard output: {}; check where it goes (a full disk, a closed pipe)",
      what, err != 0 ? std::strerror(err) : "write failed"));
}

}  // namespace cifar
