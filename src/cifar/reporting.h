// reporting.h: what the user sees and what a run leaves behind.
//
// Evaluation results (overall and per-class accuracy, the confusion matrix)
// as the tutorial prints them or as one JSON object; one line per epoch; the
// run's metrics.csv; and a progress display for long epochs: a redrawn bar
// when stderr is a terminal, plain periodic lines when it is not (CI logs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cifar {

struct EvalResult {
  int64_t num_classes = 10;
  int64_t total = 0;
  int64_t correct = 0;
  double loss = 0;                 // mean cross-entropy
  std::vector<int64_t> confusion;  // num_classes x num_classes, row = true label

  double accuracy() const { return total > 0 ? static_cast<double>(correct) / total : 0.0; }
  std::vector<double> per_class_accuracy() const;
};

struct EpochMetrics {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0;
  double train_accuracy = 0;
  double test_loss = 0;
  double test_accuracy = 0;
  double lr = 0;       // at the end of the epoch
  double seconds = 0;  // training part of the epoch (evaluation excluded)
  double images_per_second = 0;
  double eval_seconds = 0;
  int64_t peak_memory_bytes = 0;  // GPU only, 0 on the CPU
};

std::string format_epoch_line(const EpochMetrics& m, int64_t epochs);

// "Accuracy of the network on the 10000 test images: 54.3 %" then one line
// per class, as the PyTorch tutorial prints them.
std::string format_per_class(const EvalResult& result, const std::vector<std::string>& names);
std::string format_confusion(const EvalResult& result, const std::vector<std::string>& names);

nlohmann::json eval_to_json(const EvalResult& result, const std::string& model,
                            const std::string& device, const std::vector<std::string>& names);

// metrics.csv: a header, then one row per epoch, flushed as it is written.
class MetricsCsv {
 public:
  // Appends when the file exists (a resumed run), else writes the header.
  explicit MetricsCsv(const std::filesystem::path& path);
  void write(const EpochMetrics& m);

 private:
  std::ofstream out_;
};

class Progress {
 public:
  Progress(bool interactive, int64_t total_steps, std::string label);
  // Called once per refresh, never per step: loss is already on the host.
  void update(int64_t step, double loss, double images_per_second, double eta_seconds);
  void finish();

 private:
  bool interactive_;
  int64_t total_;
  std::string label_;
  bool drawn_ = false;
};

std::string format_duration(double seconds);

}  // namespace cifar
