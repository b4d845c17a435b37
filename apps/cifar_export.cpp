// cifar-export: a cifar-train checkpoint's weights as a file Python reads.
//
// The format follows --out's extension: .safetensors (with the model,
// normalisation and class names as metadata) or .pt/.pth (a plain dict that
// torch.load reads with weights_only=True).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "cifar/app/cli.h"
#include "cifar/core/version.h"
#include "cifar/io/checkpoint.h"
#include "cifar/io/weights.h"

int main(int argc, char** argv) {
  cifar::LogOptions log;
  std::string checkpoint, out;
  CLI::App app{"cifar-export: write a checkpoint's weights as .safetensors or .pt for Python",
               "cifar-export"};
  app.set_version_flag("--version", cifar::version_line("cifar-export"));
  app.add_option("-c,--checkpoint", checkpoint, "Checkpoint written by cifar-train")->required();
  app.add_option("-o,--out", out,
                 "Output file: .safetensors, or .pt/.pth (a state dict for torch.load)")
      ->required();
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    const auto loaded = cifar::load_checkpoint(checkpoint);
    cifar::export_weights(loaded, out);
    spdlog::info("wrote {} ({} model, {} tensors)", out, loaded.info.model,
                 cifar::model_state_dict(*loaded.model).size());
    return 0;
  });
}
