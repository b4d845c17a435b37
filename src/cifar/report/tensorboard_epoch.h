// tensorboard_epoch.h: TensorBoard's per-epoch record: what the trainer puts
// in the event file after each epoch.
//
// One call per epoch writes the epoch's scalars (the same numbers as the
// metrics.csv row, with the epoch as the step, so the two agree line by line),
// the per-class test accuracies, and the test confusion matrix as a heat map;
// the caller flushes them once the epoch's checkpoint is written.
//
// Tags: epoch/train_loss, epoch/train_accuracy, epoch/test_loss,
// epoch/test_accuracy, epoch/lr, epoch/images_per_second, epoch/seconds,
// epoch/eval_seconds, epoch/peak_gpu_memory_mib (GPU only),
// test_class_accuracy/<class name>, and the image test/confusion_matrix.
// With a validation split, epoch/val_loss and epoch/val_accuracy too. An
// epoch that --eval-every skips gets the training scalars only, so the
// training curves have no gaps; a run without a test split (`test` null on
// every epoch) writes no test_* scalar, class accuracy or heat map.
#pragma once

#include <string>
#include <vector>

#include "cifar/formats/tensorboard.h"
#include "cifar/report/reporting.h"

namespace cifar {

void write_tensorboard_epoch(TensorBoardWriter& writer, const EpochMetrics& m,
                             const EvalResult* test, const std::vector<std::string>& class_names);

}  // namespace cifar
