// rank_agreement.cpp: the fingerprint of a run and its comparison across ranks.
#include "cifar/resolve/rank_agreement.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cifar/config/settings_check.h"
#include "cifar/core/errors.h"
#include "cifar/formats/crc32c.h"

namespace cifar {
namespace {

uint32_t crc_of(const torch::Tensor& t) {
  const torch::Tensor bytes = t.cpu().contiguous();  // NCHW, whatever the layout on the device
  return crc32c(std::string_view(static_cast<const char*>(bytes.data_ptr()), bytes.nbytes()));
}

// "2048 images, CRC-32C 1a2b3c4d of the images, 5e6f7a8b of the labels", as trained on.
std::string data_digest(const DeviceDataset& data) {
  return fmt::format("{} images, CRC-32C {:08x} of the images, {:08x} of the labels", data.size(),
                     crc_of(data.images()), crc_of(data.labels()));
}

}  // namespace

RunFingerprint run_fingerprint(const RunSpec& plan) {
  RunFingerprint out;
  for (const RunSetting& s : plan.paths.record.settings()) {
    if (s.role != SettingRole::kMachine) out.emplace_back("--" + s.key, s.value);
  }
  // --amp as this machine resolved it, and why: "bf16 autocast (--amp auto: ...)".
  out.emplace_back(kPrecisionEntry, plan.precision.why);
  out.emplace_back("training data", data_digest(plan.data.train));
  out.emplace_back("validation data", plan.data.val ? data_digest(*plan.data.val) : "none");
  out.emplace_back("test data", data_digest(plan.data.test));
  if (const auto& resumed = plan.source.resumed) {
    out.emplace_back("--resume checkpoint",
                     fmt::format("epoch {} step {}, CRC-32C {:08x}", resumed->info.epoch,
                                 resumed->info.step_in_epoch, crc32c(resumed->bytes)));
  } else {
    out.emplace_back("--resume checkpoint", "none");
  }
  return out;
}

std::string describe_disagreement(const std::vector<RunFingerprint>& by_rank) {
  std::string differences;
  bool options = false, data = false, machines = false;  // what differs: the advice
  for (size_t r = 1; r < by_rank.size(); ++r) {
    const RunFingerprint& mine = by_rank[r];
    const RunFingerprint& first = by_rank[0];
    for (size_t i = 0; i < std::max(mine.size(), first.size()); ++i) {
      const bool both = i < mine.size() && i < first.size();
      if (both && mine[i] == first[i]) continue;
      const std::string what = both ? mine[i].first : "its settings";
      if (what == kPrecisionEntry) {
        machines = true;
      } else if (what.starts_with("--") || !both) {
        options = true;
      } else {
        data = true;
      }
      differences +=
          fmt::format("{}rank {}'s {} is {}, rank 0's is {}", differences.empty() ? "" : "; ", r,
                      what, both ? mine[i].second : "of another version",
                      both ? first[i].second : "of another version");
      if (!both) break;
    }
  }
  if (differences.empty()) return "";
  std::string advice;
  if (options) {
    advice = "Start every process with the same options (a --config file helps) and the same data";
  } else if (data) {
    advice = "Start every process on the same data";
  }
  std::string out =
      fmt::format("the {} processes were not started alike: {}.", by_rank.size(), differences);
  if (!advice.empty()) out += " " + advice;
  if (machines) {
    out += fmt::format(
        "{}Their machines resolve --amp to different precisions (what each CPU or GPU runs "
        "natively): give every process the same explicit --amp (off runs everywhere)",
        advice.empty() ? " " : ". ");
  }
  return out;
}

void check_ranks_agree(Distributed& dist, const RunSpec& plan) {
  if (dist.world_size() == 1) return;
  const RunFingerprint mine = run_fingerprint(plan);
  std::vector<RunFingerprint> by_rank;
  for (const std::string& text : dist.all_gather_text(nlohmann::json(mine).dump())) {
    by_rank.push_back(nlohmann::json::parse(text).get<RunFingerprint>());
  }
  if (const std::string why = describe_disagreement(by_rank); !why.empty()) throw UsageError(why);
}

}  // namespace cifar
