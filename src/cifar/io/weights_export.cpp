// weights_export.cpp: models to weights files (see weights_export.h).
#include "cifar/io/weights_export.h"

#include "cifar/io/weights_file.h"
#include "cifar/io/weights_metadata.h"
#include "cifar/model/state_dict.h"

namespace cifar {
namespace fs = std::filesystem;

void export_weights(const CheckpointInfo& info, ClassifierImpl& model, const fs::path& path) {
  write_weights(path, model_state_dict(model), weights_metadata(info));
}

void export_weights(const LoadedCheckpoint& checkpoint, const fs::path& path) {
  export_weights(checkpoint.info, *checkpoint.model, path);
}

fs::path write_run_weights(const fs::path& run_dir, const CheckpointInfo& info,
                           ClassifierImpl& model) {
  const fs::path path = run_dir / "model.safetensors";
  export_weights(info, model, path);
  return path;
}

}  // namespace cifar
