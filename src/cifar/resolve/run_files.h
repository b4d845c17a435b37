// run_files.h: the files a training run reads and writes, resolved and
// checked against each other before anything is written.
//
// The run folder (--run-dir; a resumed run's own; else a new one under
// runs/), the checkpoint (--checkpoint; else named after the model, and
// after an image folder's name so that runs on two folders do not replace
// each other), the inputs no output may replace, and the run a --resume
// continues. Every output (the image cache's too) is checked against every
// input, and (rank 0, which writes them) the run folder against another
// run's results (report/run_outputs.h): a UsageError before anything starts.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "cifar/config/train_config.h"
#include "cifar/core/file_identity.h"
#include "cifar/dist/distributed.h"
#include "cifar/io/resumed_run_dir.h"
#include "cifar/io/run_dir.h"
#include "cifar/resolve/model_source.h"

namespace cifar {

struct RunFiles {
  std::filesystem::path run_dir;           // as the user gave it (config.toml holds it absolute)
  std::filesystem::path checkpoint;        // --checkpoint, or its default
  std::vector<NamedFile> inputs;           // run_input_files
  std::optional<ResumedRun> resumed = {};  // the run --resume continues
  // The new folder made for the run when none was named (rank 0's; null
  // elsewhere): it goes again if the run ends before writing in it.
  std::shared_ptr<const RunDirClaim> claim = {};
};

// The files a run reads that no output may replace: the data files and
// --init-weights. Not --resume or --config: a resumed run goes on writing
// the checkpoint and config.toml it was started from.
std::vector<NamedFile> run_input_files(const TrainConfig& c);

// The run's files, checked (see above). Collective: with several processes
// every rank calls it, and every rank stops alike on rank 0's finding.
RunFiles resolve_run_files(const TrainConfig& config, const ModelSource& source, Distributed& dist);

}  // namespace cifar
