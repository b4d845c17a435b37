// tensorboard.h: a small writer of TensorBoard event files.
//
// TensorBoard reads `events.out.tfevents.<unix time>.<host>.<pid>.<n>` files:
// TFRecords (length, masked CRC-32C of the length, data, masked CRC-32C of
// the data), each holding one `Event` protocol-buffer message. Debian has no
// C++ writer and the LibTorch wheel's protobuf headers clash with Debian's, so
// the few message fields needed (scalars, PNG images, text, the hparams
// plugin's session records) are encoded by hand in tensorboard.cpp and tested
// with TensorBoard's own reader (tests/cli/tensorboard_events.sh).
//
// Each writer starts a new file in its folder, so a resumed run adds a file
// beside the old one and TensorBoard shows both as one run (the steps past
// the checkpoint it resumes from dropped: tensorboard_trim.h). Records are
// held in memory until flush(), which the run calls at its progress lines and
// checkpoints; the reader skips a torn last record. The destructor writes
// what is held.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cifar {

// How every event file's name starts (TensorBoard finds them by it).
inline constexpr std::string_view kEventFilePrefix = "events.out.tfevents.";

// One hyperparameter for TensorBoard's HPARAMS tab.
struct HParam {
  std::string name;
  std::variant<double, bool, std::string> value;
};

class TensorBoardWriter {
 public:
  // Creates `dir` if needed and a new event file in it; throws
  // std::runtime_error naming the path when it cannot.
  explicit TensorBoardWriter(const std::filesystem::path& dir);
  ~TensorBoardWriter();  // flushes; never throws
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  const std::filesystem::path& path() const { return path_; }

  void scalar(std::string_view tag, double value, int64_t step);
  // An encoded PNG of height x width pixels; colorspace 1 grey, 3 RGB, 4 RGBA.
  void image(std::string_view tag, std::span<const uint8_t> png, int height, int width,
             int64_t step, int colorspace = 3);
  // Shown in the TEXT tab, rendered as Markdown (indent by 4 spaces or wrap
  // in ``` for verbatim text such as a TOML config).
  void text(std::string_view tag, std::string_view text, int64_t step);

  // TensorBoard's HPARAMS tab: call hparams_start() once at the start of a
  // run with its settings and the scalar tags to show as metrics (e.g.
  // "test/accuracy": the tab shows their last value), hparams_end() when the
  // run finishes.
  void hparams_start(const std::vector<HParam>& hparams,
                     const std::vector<std::string>& metric_tags);
  void hparams_end(bool success);

  // TensorBoard's purge marker, as PyTorch's SummaryWriter(purge_step=step)
  // writes it: a SessionLog START at `step`, on reading which TensorBoard
  // drops what it holds of every tag at `step` or later (a resumed run's
  // steps written before by the run it resumes).
  void purge_from(int64_t step);

  // Drops the records held since the last flush (an epoch whose checkpoint
  // failed: its resumed run writes them again).
  void discard() { held_.clear(); }

  // Pushes buffered records to the file; throws std::runtime_error on a
  // write error (disk full).
  void flush();

 private:
  void write_event(const std::string& event);

  std::filesystem::path path_;
  std::ofstream out_;
  std::string held_;  // records since the last flush()
};

}  // namespace cifar
