// inference.h: the runs of cifar-eval, cifar-predict and cifar-export,
// resolved once from their parsed options, before any of them reads data,
// classifies an image or writes a file.
//
// Each function takes a tool's settings as its command line parsed them
// (config/tool_configs.h's EvalConfig, PredictConfig and ExportConfig) and
// returns what infer/ and io/ then
// run with: the model loaded on the CPU (model_input.h), the test-time
// augmentation level chosen, the images listed, the output checked. Every
// refusal of those settings is issued here or below it in config/ (the
// options' ranges: --tta, --top-k, --batch-size; no output onto an input), as
// a UsageError naming the option, so infer/ and io/ trust what they are given.
#pragma once

#include "cifar/config/tool_configs.h"
#include "cifar/infer/evaluate.h"
#include "cifar/infer/predict.h"
#include "cifar/io/checkpoint.h"

namespace cifar {

// cifar-eval: the options checked (the Model options, their ranges, the model
// file no output of reading the data), --split refused for a plain folder of
// class folders (evaluated whole), the model loaded, the TTA level chosen:
// --tta, else the checkpoint's (0 for a weights file), and the data read and
// checked against the model's classes (infer/eval_data.h).
// The device, its threads and the precision resolved and logged
// (resolve/machine.h).
EvalRun resolve_eval(const EvalConfig& config);

// cifar-predict: the options checked, the images listed (folders walked; what
// was skipped logged), --csv none of the inputs and writable, the model
// loaded, in eval mode on --device, and the TTA level chosen: --tta, else the
// checkpoint's (0 for a weights file), level 3 as 2 (predict.h), logged with
// where it came from; the device and the thread count resolved
// (resolve/machine.h). config.machine is the app's to fill in
// before.
PredictRun resolve_predict(const PredictConfig& config);

// cifar-export: the options checked, --out refused before the model is read
// when its extension names no weights format it writes (.safetensors, .pt, .pth), when
// it would replace a file cifar-export did not write, or cannot be written
// (its folder is not made for it); then the model loaded.
LoadedCheckpoint resolve_export(const ExportConfig& config);

}  // namespace cifar
