// reporting.h: what the user sees and what a run leaves behind.
//
// Evaluation results (overall and per-class accuracy, the confusion matrix)
// as the tutorial prints them or as one JSON object; one line per epoch; the
// run's metrics.csv. (The progress bar is progress_bar.h.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cifar/report/metrics.h"

namespace cifar {

// One line per epoch: loss then accuracy for each split, the learning rate
// (3 significant digits; metrics.csv has it in full), seconds, images/s, and
// on a GPU the peak memory. Without a validation split, on the CPU, it fits a
// 100-column terminal after the logger's "[hh:mm:ss] info: " up to epoch
// 99/99, 1000 s and 99,999 img/s:
//   epoch 12/30: train 1.3404 52.35% test 1.2904 53.59% | lr 0.00123 123.4s 12345 img/s
// and it grows by " val 1.1000 50.00%" with one, " peak 1234 MiB" on a GPU.
std::string format_epoch_line(const EpochMetrics& m, int64_t epochs);

// "Accuracy of the network on the 10000 test images: 54.3 %" then one line
// per class, as the PyTorch tutorial prints them. `split`: the split
// evaluated ("test", "val" or "train"), named in words.
std::string format_per_class(const EvalResult& result, const std::vector<std::string>& names,
                             const std::string& split = "test");
// "test", "validation" or "training": a split's images in words.
std::string split_in_words(const std::string& split);
// "Test-time augmentation: level 2 (...)", then the confusion matrix.
std::string format_confusion(const EvalResult& result, const std::vector<std::string>& names);
// "level 1 (the image and its mirror)": a test-time augmentation level in words.
std::string describe_tta(int64_t level);

// One JSON object: model, device, split, total, correct, accuracy, loss, tta, per_class.
std::string eval_to_json(const EvalResult& result, const std::string& model,
                         const std::string& device, const std::vector<std::string>& names,
                         const std::string& split = "test");

// metrics.csv: a header, then one row per epoch, flushed as it is written.
class MetricsCsv {
 public:
  // Appends when the file exists (a resumed run), else writes the header
  // (with the first row).
  // `keep_through_epoch` (a resumed run: the epochs its checkpoint holds)
  // first drops the rows of later epochs, with a warning: a run stopped
  // between an epoch's row and its checkpoint trains that epoch again, and
  // its row must appear once.
  explicit MetricsCsv(const std::filesystem::path& path,
                      std::optional<int64_t> keep_through_epoch = std::nullopt);
  // The header is written with the first row: with a last column,
  // test_top5_accuracy, when m.top5_column (more than ten classes).
  void write(const EpochMetrics& m);

 private:
  std::ofstream out_;
  bool header_due_ = false;
};

}  // namespace cifar
