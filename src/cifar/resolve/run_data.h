// run_data.h: a training run's data as the settings ask for it, and what was read.
//
// split_options turns the settings into the data layer's SplitOptions (the
// kind, the images (image_spec), the limits, the held-out images, the decoding
// bar); log_data says what was read and what it means for the run (the split
// sizes, how best.pt is chosen, a --batch-size lowered to the training split,
// the data options the data set's kind does not read); fitted_batch is that
// lowering; slow_run_hint is what the forecast of a long run adds, by the
// data's kind.
#pragma once

#include <cstdint>
#include <string>

#include "cifar/config/train_config.h"
#include "cifar/data/splits.h"
#include "cifar/model/model_registry.h"

namespace cifar {

// The model's images, where --image-size, --crop-mode, --crop-pct and
// --crop-scale become the data's ImageSpec (model_source.cpp checks the
// given size against the model first): the side given, else CIFAR's 32; the
// preparation given, else the kind's; for an augmenting recipe (`augments`)
// and a kind augmented by random resized crops (--crop-scale above 0), the
// training images kept whole at kWholeScale times the side.
ImageSpec image_spec(const TrainConfig& c, const DatasetKindEntry& kind, bool augments);

// The data layer's options for `c`, its kind detected once (rank 0 draws the
// decoding bar; `progress_bar`: it draws on stderr; `spare_cache_dir`: where
// a read-only image folder's cache goes).
SplitOptions split_options(const TrainConfig& c, bool augments, bool main_rank, bool progress_bar,
                           const std::filesystem::path& spare_cache_dir);

// --batch-size, lowered to fit a training split smaller than it: each of the
// `world` processes' batch to its share of the images (so the global batch
// stays a multiple of the process count). A share of 0 images is left to
// the epoch check, which refuses it.
int64_t fitted_batch(int64_t batch, int64_t train_images, int world);

// The side a run trains the images of --data at when nothing else sets one
// (--image-size 0, no weights, no resumed run): for a data set of photos of
// any size (an image folder), their median shorter side, down to a multiple
// of 8, from 32 up to the model's photo_side; in float32 on a CPU, up to half
// of it for a folder of more than kFloat32FullSidePhotos training photos (a CPU's
// float32 convolutions run at about a quarter of its native bf16's rate:
// half the side is a quarter of the pixels, and a large folder's run its
// usual time). Said in the log. 0: the data set's own side.
inline constexpr int64_t kFloat32FullSidePhotos = 1000;
int64_t photo_side(const TrainConfig& c, const ModelEntry& model, AmpMode amp, bool on_cpu,
                   bool main_rank);

// The run's epochs: --epochs, or more when they take fewer than --steps N
// steps of `steps_per_epoch`: then the fewest that take N, said in the log
// on the main rank (an epoch of no step is left to the epoch check, which
// refuses it).
int64_t epochs_for_steps(const TrainConfig& c, int64_t steps_per_epoch, int64_t train_images,
                         int64_t batch, bool main_rank);

// What the forecast (train/forecast.h) adds to a run it expects to be long
// on a CPU: after_s, the training time past which it is said (0: never), and
// the line. Photos (a kind of image files) trained from scratch past 5
// minutes point to the pretrained start, which trains them in a fraction of
// the time (docs/benchmarks.md: on a CPU with slow convolutions, a 2-class
// folder of 240 photos in 51 s against 7 min 45 s, and 16 points more), and
// to --time (a run with --time has no forecast: its fits say its length);
// photos started from weights get none (the CPU recipes are for CIFAR's
// files); any other run past an hour points to the CPU recipes. None on a
// GPU.
struct SlowRunHint {
  double after_s = 0;
  std::string text;
};
// `configs`: where the tools' own configs are (RunContext::configs_dir).
SlowRunHint slow_run_hint(const DatasetKindEntry& kind, bool from_scratch, bool on_cpu,
                          const std::filesystem::path& configs);

// What the data is and what it means for the run: the split sizes, how
// best.pt is chosen, the photo configs (in `configs`) for photos trained on
// the bare defaults, and (rank 0) a --batch-size lowered to `batch`.
void log_data(const TrainConfig& c, const RunData& data, bool main_rank, int64_t batch,
              const std::filesystem::path& configs);

// What a checkpoint records of the training split its steps count in
// (CheckpointInfo::train_fingerprint): the SHA-256, in hex, of the images'
// bytes and then the labels', in training order.
std::string train_data_fingerprint(const ImageSplit& train);

}  // namespace cifar
