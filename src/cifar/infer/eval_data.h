// eval_data.h: the data cifar-eval evaluates on: the split --split names of
// the data set --data holds (an image folder without test/: its val/), or a
// plain folder of class folders read whole, labelled by the model's classes;
// the model's classes checked against it.
#pragma once

#include "cifar/data/image_split.h"
#include "cifar/infer/evaluate.h"
#include "cifar/io/checkpoint.h"

namespace cifar {

// Whether --data is a plain folder of class folders (DIR/<class>/...), read
// whole, not a data set with splits: --dataset folder or auto, and (auto) no
// file of a binary data set beside its folders. Such a folder takes no
// --split (resolve/inference.h refuses one).
bool evaluated_whole(const EvalConfig& config);

// The split of the data --data holds that --split names (or, for a plain
// folder of class folders, all of it), read at the model's image size, and
// the model's classes checked against it: the same names in the same order
// (a weights file that names none takes the data's, when it has as many
// outputs; `checkpoint`'s class names are then set). Precondition: no
// --split other than test for a folder evaluated whole (std::invalid_argument).
ImageSplit read_test_data(const EvalConfig& config, LabelSet labels, LoadedCheckpoint& checkpoint);

}  // namespace cifar
