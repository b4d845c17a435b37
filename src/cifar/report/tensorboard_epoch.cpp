// tensorboard_epoch.cpp: the epoch's scalars, per-class accuracies and heat map.
#include "cifar/report/tensorboard_epoch.h"

#include <algorithm>
#include <cmath>

#include "cifar/report/heatmap.h"

namespace cifar {

void write_tensorboard_epoch(TensorBoardWriter& writer, const EpochMetrics& m,
                             const EvalResult* test, const std::vector<std::string>& class_names) {
  const int64_t step = m.epoch;
  writer.scalar("epoch/train_loss", m.train_loss, step);
  writer.scalar("epoch/train_accuracy", m.train_accuracy, step);
  writer.scalar("epoch/lr", m.lr, step);
  writer.scalar("epoch/images_per_second", m.images_per_second, step);
  writer.scalar("epoch/seconds", m.seconds, step);
  if (m.peak_memory_bytes > 0) {
    writer.scalar("epoch/peak_gpu_memory_mib",
                  static_cast<double>(m.peak_memory_bytes) / (1024.0 * 1024.0), step);
  }
  if (m.has_validation()) {
    writer.scalar("epoch/val_loss", m.val_loss, step);
    writer.scalar("epoch/val_accuracy", m.val_accuracy, step);
  }
  if (test != nullptr || m.has_validation()) {
    writer.scalar("epoch/eval_seconds", m.eval_seconds, step);
  }
  // Test figures only from a test evaluation: none without a test split.
  if (test != nullptr) {
    writer.scalar("epoch/test_loss", m.test_loss, step);
    writer.scalar("epoch/test_accuracy", m.test_accuracy, step);
    if (m.test_top5 >= 0) writer.scalar("epoch/test_top5_accuracy", m.test_top5, step);
    const auto per_class = test->per_class_accuracy();
    for (size_t c = 0; c < per_class.size() && c < class_names.size(); ++c) {
      if (std::isnan(per_class[c])) continue;  // no test images of that class
      writer.scalar("test_class_accuracy/" + class_names[c], per_class[c], step);
    }
    if (test->num_classes > 0 &&
        test->confusion.size() == static_cast<size_t>(test->num_classes * test->num_classes)) {
      // About 960 pixels a side at any class count (heatmap_layout), so that
      // the image stays readable as a whole.
      const int64_t n = test->num_classes;
      const HeatmapLayout layout = heatmap_layout(n);
      const auto heat =
          confusion_heatmap_png(test->confusion, n, layout.cell_pixels, layout.classes_per_cell);
      writer.image("test/confusion_matrix", heat.png, heat.height, heat.width, step);
    }
  }
}

}  // namespace cifar
