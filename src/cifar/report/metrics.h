// metrics.h: the numbers a run produces, as plain data.
//
// EvalResult is one evaluation (loss, counts and the confusion matrix);
// EpochMetrics is one epoch's line in the log and row in metrics.csv.
#pragma once

#include <cstdint>
#include <vector>

namespace cifar {

// Top-5 accuracy is measured and reported for more classes than this.
inline constexpr int64_t kTop5Above = 10;

struct EvalResult {
  int64_t num_classes = 10;
  int64_t total = 0;
  int64_t correct = 0;
  double loss = 0;                 // mean cross-entropy
  std::vector<int64_t> confusion;  // (num_classes, num_classes) row-major, row = true label
  int64_t tta = 0;                 // test-time augmentation level it was measured with (0..2)
  // Images whose class is among the model's 5 highest logits: counted when
  // there are more than 10 classes (kTop5Above), else -1.
  int64_t correct_top5 = -1;

  double accuracy() const {
    return total > 0 ? static_cast<double>(correct) / static_cast<double>(total) : 0.0;
  }
  bool has_top5() const { return correct_top5 >= 0; }
  double top5_accuracy() const {
    return total > 0 ? static_cast<double>(correct_top5) / static_cast<double>(total) : 0.0;
  }
  // Each class's accuracy; NaN for a class without test images (an image
  // folder's test/ may lack some).
  std::vector<double> per_class_accuracy() const;
};

struct EpochMetrics {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0;
  double train_accuracy = 0;
  double test_loss = 0;
  double test_accuracy = 0;
  double test_top5 = -1;     // -1: not measured (10 classes or fewer, or no test this epoch)
  bool top5_column = false;  // the run has more than 10 classes: metrics.csv has a top-5 column
  double val_loss = -1;      // -1: no validation split (--val-split 0)
  double val_accuracy = -1;
  double lr = 0;       // at the end of the epoch
  double seconds = 0;  // training part of the epoch (evaluation excluded)
  double images_per_second = 0;
  double eval_seconds = 0;
  int64_t peak_memory_bytes = 0;  // GPU only, 0 on the CPU

  // false on an epoch --eval-every skips and in a run without a test split:
  // test_* then mean nothing, and metrics.csv leaves them empty
  bool tested = true;

  bool has_test() const { return tested; }
  bool has_validation() const { return val_accuracy >= 0; }
  // What best.pt is chosen on: validation accuracy when there is a
  // validation split, else (leaking the test set into the choice) test accuracy.
  double selection_accuracy() const { return has_validation() ? val_accuracy : test_accuracy; }
};

}  // namespace cifar
