// run_data.h: a training run's data as the settings ask for it, and what was read.
//
// split_options turns the settings into the data layer's SplitOptions (the
// kind, the images (image_spec), the limits, the held-out images, the decoding
// bar); log_data says what was read and what it means for the run (the split
// sizes, how best.pt is chosen, a --batch-size lowered to the training split,
// the data options the data set's kind does not read); fitted_batch is that
// lowering.
#pragma once

#include <cstdint>

#include "cifar/config/train_config.h"
#include "cifar/data/splits.h"

namespace cifar {

// The model's images, where --image-size, --crop-mode, --crop-pct and
// --crop-scale become the data's ImageSpec (model_source.cpp checks the
// given size against the model first): the side given, else CIFAR's 32; the
// preparation given, else the kind's; for an augmenting recipe (`augments`)
// and a kind augmented by random resized crops (--crop-scale above 0), the
// training images kept whole at kWholeScale times the side.
ImageSpec image_spec(const TrainConfig& c, const DatasetKindEntry& kind, bool augments);

// The data layer's options for `c`, its kind detected once (rank 0 draws the
// decoding bar; `progress_bar`: it draws on stderr).
SplitOptions split_options(const TrainConfig& c, bool augments, bool main_rank, bool progress_bar);

// --batch-size, lowered to fit a training split smaller than it: each of the
// `world` processes' batch to its share of the images (so the global batch
// stays a multiple of the process count). A share of 0 images is left to
// the epoch check, which refuses it.
int64_t fitted_batch(int64_t batch, int64_t train_images, int world);

// What the data is and what it means for the run: the split sizes, how
// best.pt is chosen, and (rank 0) a --batch-size lowered to `batch`.
void log_data(const TrainConfig& c, const RunData& data, bool main_rank, int64_t batch);

}  // namespace cifar
