// cifar-export: a model's weights as a file Python reads.
//
// The model comes from a cifar-train checkpoint or a weights file (the
// "Model" options cifar-eval and cifar-predict share, config/option_groups.h). The format
// follows --out's extension: .safetensors (with the model, normalisation and
// class names as metadata) or .pt/.pth (a plain dict that torch.load reads
// with weights_only=True).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "cifar/app/cli.h"
#include "cifar/app/std_streams.h"
#include "cifar/config/config.h"
#include "cifar/core/version.h"
#include "cifar/io/weights.h"
#include "cifar/resolve/inference.h"

int main(int argc, char** argv) {
  cifar::open_closed_standard_fds();  // before any file is opened (std_streams.h)
  cifar::ExportConfig config;
  cifar::LogOptions log;
  CLI::App app{"cifar-export: write a model's weights as .safetensors or .pt for Python",
               "cifar-export"};
  app.set_version_flag("--version", cifar::version_line("cifar-export"));
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cifar::add_export_options(app, config);
  cifar::add_log_flags(app, log);

  return cifar::run_cli(app, argc, argv, log, [&] {
    // --out checked before the model is read (its format, what it would replace).
    const auto loaded = cifar::resolve_export(config);
    cifar::export_weights(loaded, config.out);
    spdlog::info("wrote {} ({} model, {} tensors)", config.out, loaded.info.model,
                 cifar::model_state_dict(*loaded.model).size());
    return 0;
  });
}
