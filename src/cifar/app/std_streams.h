// std_streams.h: standard input, output and error as the tools rely on them.
//
// A tool started with descriptor 0, 1 or 2 closed would give that number to
// the next file it opens (metrics.csv, the run folder's lock file), and its
// log lines or results would land inside that file. Each main() therefore
// calls open_closed_standard_fds() before anything else: a closed one is
// opened on /dev/null. And a result that cannot be written to standard output
// (a full disk, /dev/full, a closed pipe) is an error, not a silent success:
// check_stdout_written() flushes it and throws naming the cause.
#pragma once

namespace cifar {

// Opens each of descriptors 0-2 that is closed on /dev/null.
void open_closed_standard_fds();

// Flushes std::cout and stdout; std::runtime_error when any write to
// standard output failed ("cannot write the results to standard output: No
// space left on device"); `what` names what was written.
void check_stdout_written(const char* what = "the results");

}  // namespace cifar
