// cli.h: what the four command-line tools share.
//
// run_cli() parses the command line with CLI11, then runs the tool's body and
// turns every failure into one clear log line and an exit status:
//   0   success (and --help, --version)
//   1   a runtime failure (bad data, unreadable checkpoint, out of memory, ...)
//   2   a usage error (bad flag or value, bad config file: its name and line)
//   130 training interrupted by the user (a checkpoint was written), logged
//       as a warning: it is what the user asked for
// The full exception text (a C++ stack trace for LibTorch errors) is logged
// only with --verbose. Under torchrun ($TORCHELASTIC_ERROR_FILE set) the same
// line goes to the launcher's error file, so its failure summary names the
// cause instead of "<N/A>".
#pragma once

#include <CLI/CLI.hpp>

#include "cifar/dist/distributed.h"
#include "cifar/platform/machine.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cifar {

struct LogOptions {
  bool quiet = false;
  bool verbose = false;
};

// Adds --quiet and --verbose to `app`.
void add_log_flags(CLI::App& app, LogOptions& options);

// Logs to stderr (stdout is kept for results such as --json).
void setup_logging(const LogOptions& options);

// --data not given (on the command line or in a config file): take
// $CIFAR10_DIR when it is set (a failure naming that folder then ends with
// "(--data from $CIFAR10_DIR=...)"). The library itself reads no environment.
void resolve_data_env(const CLI::App& app, std::string& data_dir);

// The launcher's variables (torchrun's RANK, WORLD_SIZE, ...), parsed.
DistEnv dist_env_from_environment();

// Where --pretrained looks for a model's weights (resolve/weights_source.h):
// the folders of $CIFAR_PRETRAINED_PATH (':'-separated) when set, else the
// site-packages folder of the Python environment this build's LibTorch came
// from, where scripts/setup.sh installs the weights' packages (none for a
// LibTorch outside one).
std::vector<std::filesystem::path> pretrained_dirs_from_environment();

// Where an image folder's decode cache goes when its data folder cannot hold
// one (read-only): ${XDG_CACHE_HOME:-$HOME/.cache}/cifar-train, the folder
// scripts/setup.sh keeps LibTorch's environment in; empty when neither is set.
std::filesystem::path spare_cache_dir_from_environment();

// The folders of the configs that come with the tools: share/cifar-train/
// configs beside the tool's bin/ (installed), then the source tree's
// configs/ (shipped_configs.cpp); and, for a --config file that is not
// there, ": the tools' own photos.toml is DIR/photos.toml" when one of them
// holds a file of its name (".toml" added to a bare name), else "".
std::vector<std::filesystem::path> shipped_config_dirs();
std::string shipped_config_hint(const std::string& given);
// The first of shipped_config_dirs() that exists, as the hints name it:
// relative to the working folder when it is below it ("configs" in the
// source tree), else absolute; "configs" when none exists.
std::filesystem::path shipped_configs_shown();
// With several processes, each log line names its rank ("[12:00:01] rank 1
// error: ..."): torchrun interleaves the processes' output.
void label_logs_with_rank(const DistEnv& env);

// $OMP_NUM_THREADS as a positive number; 0 when unset or empty. UsageError
// naming the variable for any other value ("abc", "0", "-1", " 1", "2,1").
int64_t omp_num_threads_from_env();

// The machine as the environment says it (platform/machine.h): the hardware
// threads, $OMP_NUM_THREADS (as omp_num_threads_from_env), $ATEN_CPU_CAPABILITY.
MachineEnv machine_env_from_environment();

// Whether progress bars draw on stderr: it is a terminal and $TERM is not
// "dumb" (report/progress_bar.h draws what the app decides).
bool stderr_draws_bars();

// --deterministic: deterministic cuBLAS needs CUBLAS_WORKSPACE_CONFIG=:4096:8
// (as PyTorch Lightning sets it); set unless the environment has one.
void set_deterministic_cublas_env();

// Parses the command line (a usage error exits 2; --help prints the help even
// beside a value it would refuse), settles `log` (--quiet and --verbose: the
// command line's over the config file's, both at once refused), then runs
// `body`: its exceptions become exit codes (cli.cpp's catch).
int run_cli(CLI::App& app, int argc, char** argv, LogOptions& log,
            const std::function<int()>& body);

}  // namespace cifar
