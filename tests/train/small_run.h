// small_run.h: the settings the job's tests start from: the net on the CPU at
// batch 50, reading `data_dir` and writing a run folder and a checkpoint into
// `out`, evaluating in one batch.
#pragma once

#include <cstdint>
#include <filesystem>

#include "cifar/config/train_config.h"

namespace cifar::test {

inline TrainConfig small_run(const std::filesystem::path& data_dir,
                             const std::filesystem::path& out, int64_t train_limit, int64_t epochs,
                             double lr) {
  TrainConfig c;
  c.model = "net";
  c.data_dir = data_dir.string();
  c.device = *parse_device("cpu");
  c.train_limit = train_limit;
  c.epochs = epochs;
  c.batch_size = 50;
  c.lr = lr;
  c.eval_batch_size = 2000;
  c.run_dir = (out / "run").string();
  c.checkpoint = (out / "model.pt").string();
  return c;
}

}  // namespace cifar::test
