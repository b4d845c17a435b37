// thread_cache.h: thread counts measured once, remembered for later runs.
//
// The thread tuner (thread_tuner.h) times thread counts on probes; on a
// short run that costs a large share of the training. As cuDNN's benchmark
// cache and FFTW's wisdom do, the measured choice is kept in a small file
// (by default $XDG_CACHE_HOME/cifar-train/threads.json, else
// ~/.cache/cifar-train/threads.json; the app resolves the path, the library
// reads no environment) and a later run of the same case starts at it with
// no probes. A case is everything the choice depends on, as one key
// (ThreadCase::key): what is timed (training steps or evaluation), the CPU
// model and its core count, the model, the batch size, the precision, the
// memory format and the LibTorch version. Each remembered choice also keeps
// the load that other processes put on the machine when it was measured
// (cpu_load.h): a case has an entry per load, and a run looks up the one
// measured at about its own load.
//
// The file is JSON, small and readable:
//   {"format": "cifar-train thread cache", "version": 1,
//    "cases": [{"key": "...", "others_load": 0.02, "threads": 2,
//               "rates": {"1": 9509, "2": 22162}, "probe_seconds": 0.41}, ...]}
// (rates: img/s of the probes at each count). It is never trusted blindly:
// a file that is not JSON, has another format or version, or holds a value
// out of range is ignored as a whole, with a note saying why, and the next
// write replaces it. Writes are atomic (core/file_io.h) and merge with what
// the file holds at that moment, so runs finishing together lose no more
// than one another's latest entry; the file keeps the newest kMaxEntries.
// A failed write is a note too: the cache never stops a run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cifar {

// What a thread choice depends on.
struct ThreadCase {
  std::string phase;  // "train" (forward + backward) or "eval" (forward only)
  std::string cpu;    // cpu_model_name()
  int64_t cores = 1;  // the hardware threads the run may use
  std::string model;
  int64_t batch = 1;
  std::string precision;  // "off", "bf16", "fp16"
  bool channels_last = false;
  std::string libtorch;  // libtorch_version()
  std::string key() const;
};

// One remembered choice.
struct RememberedThreads {
  std::string key;
  double others_load = 0;       // cores other processes kept busy while it was measured
  int threads = 1;              // the count chosen
  std::map<int, double> rates;  // img/s of the probes per count
  double probe_seconds = 0;     // what measuring it cost
};

class ThreadCache {
 public:
  static constexpr size_t kMaxEntries = 64;
  static constexpr uint64_t kMaxBytes = 1 << 20;
  // Two loads closer than this (in cores) are the same load.
  static constexpr double kSameLoad = 0.5;

  // Reads `file`; an empty path is no cache (nothing found, nothing written).
  // A missing file is an empty cache; a damaged or foreign one is ignored
  // (note()).
  explicit ThreadCache(std::filesystem::path file);

  bool enabled() const { return !file_.empty(); }
  const std::filesystem::path& file() const { return file_; }
  // Why the file was ignored or could not be written ("" when all is well).
  const std::string& note() const { return note_; }
  const std::vector<RememberedThreads>& entries() const { return entries_; }

  // The entry of `key` measured nearest to `others_load`, within kSameLoad.
  std::optional<RememberedThreads> find(const std::string& key, double others_load) const;
  // Keeps `entry` (replacing the one of its key at about its load) and writes
  // the file atomically, merged with what it holds now.
  void remember(const RememberedThreads& entry);

 private:
  std::filesystem::path file_;
  std::vector<RememberedThreads> entries_;
  std::string note_;
};

// The cache file's text for `entries`, and the entries of a text (throws
// std::runtime_error naming what is wrong); exposed for the tests.
std::string thread_cache_text(const std::vector<RememberedThreads>& entries);
std::vector<RememberedThreads> parse_thread_cache(const std::string& text);

}  // namespace cifar
