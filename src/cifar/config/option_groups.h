// option_groups.h: the option groups several tools share.
//
// model_group (where a trained model comes from: cifar-eval, cifar-predict,
// cifar-export), image_prep_options (cifar-train, and the model group),
// data_group and device_group (cifar-train, cifar-eval) and tta_option
// (cifar-train, and cifar-eval and cifar-predict with the checkpoint's own
// level),
// each written once and called by the tools' tables (option_tables.h), with
// the names of the --help groups they share.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cifar/config/option_values.h"
#include "cifar/config/option_visitors.h"
#include "cifar/config/tool_configs.h"
#include "cifar/config/train_config.h"

namespace cifar::options {

// --- Groups the tools share ----------------------------------------------------------

inline constexpr const char* kModel = "Model";
inline constexpr const char* kData = "Data";
inline constexpr const char* kDevice = "Device and speed";
inline constexpr const char* kEvaluation = "Evaluation";
inline constexpr const char* kOutput = "Output";

// --image-size, --crop-mode, --crop-pct: the images cifar-train trains on
// (kept in the checkpoint and the weights metadata), and, for a --weights
// file, the images its model takes (cifar-eval, cifar-predict, cifar-export:
// over the file's metadata, io/weights_images.h). Declared once for the four.
template <class C, class V>
void image_prep_options(C& c, V&& v) {
  constexpr bool kTrain = std::is_same_v<std::remove_const_t<C>, TrainConfig>;
  const auto opt = [](const char* name, const char* train_help, const char* weights_help) {
    const Opt o{name, kTrain ? kData : kModel, kTrain ? train_help : weights_help};
    return kTrain ? fixed(o) : o;
  };
  v.number(opt("--image-size",
               "Train on images of N x N pixels (0: chosen: a pretrained model's own, or the "
               "--init-weights file's recorded size; else 32, or for airbench94 on an image "
               "folder its photos' median shorter side, 32 to 64, said in the log); kept in the "
               "checkpoint for cifar-eval and cifar-predict",
               "With --weights: the side N (px) of the images the model takes (0: the file's "
               "metadata, else 32)"),
           c.image_size, Range<int64_t>{0, kMaxResolution});
  v.parsed(opt("--crop-mode",
               "How an image becomes N x N: center (shorter side resized, the centre cut: "
               "torchvision's), squash (the whole image resized), or auto (the data set's: CIFAR "
               "whole, an image folder center)",
               "With --weights: how an image becomes N x N, center or squash (auto: the file's "
               "metadata, else squash)"),
           c.crop_mode, Parsed<std::string>{crop_mode_of, same});
  v.number(opt("--crop-pct",
               "The centre crop's share of the resized side: images resized to N / F, then the "
               "centre N x N cut (0: the data set's: 1 for CIFAR, 0.875 for folders)",
               "With --weights: the centre crop's share of the resized side (0: the file's "
               "metadata, else 1)"),
           c.crop_pct, Range<double>{0, 1});
}

// Where a trained model comes from: cifar-eval, cifar-predict, cifar-export.
template <class In, class V>
void model_group(In& in, V&& v) {
  v.text(Opt{"-c,--checkpoint", kModel, "Checkpoint written by cifar-train"}, in.checkpoint);
  v.text(Opt{"-w,--weights", kModel,
             "Weights file (.safetensors, .pt, .pth, .ckpt, .bin, e.g. a Python state_dict) "
             "instead of a checkpoint"},
         in.weights);
  static const std::string model_help =
      "With --weights: " + models_in_words() + " (default: the file's metadata)";
  v.parsed(Opt{"-m,--model", kModel, model_help.c_str()}, in.model,
           Parsed<std::string>{model_of, same});
  v.parsed(Opt{"--stem", kModel,
               "With --weights: ResNet stem, cifar or imagenet (default: metadata, else cifar)"},
           in.stem, Parsed<ResNetStem>{stem_of, stem_text});
  v.parsed(Opt{"--mean", kModel,
               "With --weights: normalisation mean as r,g,b (default: the file's metadata, else "
               "0.4914,0.4822,0.4465)"},
           in.mean, Parsed<Channels>{mean_of, channels_text});
  v.parsed(Opt{"--std", kModel,
               "With --weights: normalisation std as r,g,b (default: the file's metadata, else "
               "0.2470,0.2435,0.2616)"},
           in.std, Parsed<Channels>{std_of, channels_text});
  image_prep_options(in, v);
}

// cifar-train, cifar-eval.
template <class C, class V>
void data_group(C& c, V&& v) {
  // Local: each process may read its own copy (the ranks compare the data itself).
  v.text(local(Opt{"--data", kData,
                   "Data folder: CIFAR-10 or CIFAR-100 binary files, or train/<class>/ image "
                   "folders (default: $CIFAR10_DIR, else data/cifar-10-batches-bin)"}),
         c.data_dir);
  static const std::string dataset_help =  // the kinds' table (data/dataset_kinds.cpp)
      "What --data holds: " + in_words([] {
        std::vector<std::string> choices{"auto (detected from its files)"};
        for (const std::string& name : entry_names(dataset_kinds())) choices.push_back(name);
        return choices;
      }());
  v.parsed(Opt{"--dataset", kData, dataset_help.c_str()}, c.dataset,
           Parsed<std::string>{dataset_of, same});
  v.parsed(Opt{"--labels", kData,
               "CIFAR-100's classes: fine (100) or coarse (20 superclasses); cifar-eval: the set "
               "the model was trained on, by default"},
           c.labels, Parsed<LabelSet>{label_set_of, label_set_text});
  v.flag(Opt{"--skip-bad-images", kData,
             "Image folders: skip files that are not readable images (counted and named) "
             "instead of stopping"},
         c.skip_bad_images);
}

// cifar-train, cifar-eval.
template <class C, class V>
void device_group(C& c, V&& v) {
  v.parsed(local(Opt{"-d,--device", kDevice, "auto, cpu, cuda or cuda:N (falls back to the CPU)"}),
           c.device, Parsed<DeviceRequest>{device_of, device_text});
  v.parsed(per_machine(
               Opt{"--amp", kDevice,
                   "Mixed precision: auto (bf16 where the device runs it natively: CPUs with "
                   "AVX512-BF16 or AMX, GPUs of compute capability 8.0+; fp16 with loss scaling on "
                   "older GPUs; float32 otherwise), bf16, fp16 (with loss scaling) or off"}),
           c.amp, Parsed<AmpMode>{amp_of, amp_text});
}

// cifar-train, cifar-eval, cifar-predict.
template <class C, class V>
void threads_option(C& threads, V&& v) {
  v.number(
      local(Opt{"--threads", kDevice, "CPU threads for intra-op work (0: chosen at run time)"}),
      threads, Range<int64_t>{0, 4096});
}

// cifar-train (evaluations during training), cifar-eval and cifar-predict
// (which can also take the level the checkpoint was trained for).
template <class C, class V>
void tta_option(C& c, V&& v) {
  if constexpr (std::is_same_v<std::remove_const_t<C>, EvalConfig> ||
                std::is_same_v<std::remove_const_t<C>, PredictConfig>) {
    v.number(Opt{"--tta", kEvaluation,
                 "Test-time augmentation: 0 none, 1 mirror, 2 mirror + two 1-pixel translates, "
                 "3 level 2 on the least sure quarter; -1: the checkpoint's level"},
             c.tta, Range<int64_t>{-1, kMaxTta});
  } else {
    v.number(Opt{"--tta", kEvaluation,
                 "Test-time augmentation: 0 none, 1 mirror, 2 mirror + two 1-pixel translates, "
                 "3 level 2 on the least sure quarter"},
             c.tta, Range<int64_t>{0, kMaxTta});
  }
}

}  // namespace cifar::options
