// rank_agreement.h: processes started together check that they train one run.
//
// Each process of a multi-process run is started with its own options and
// reads its own copy of the data. Before any training collective they
// exchange what shapes the run (one all-gather of a short text): every saved
// setting that is not the process's own (setting_role.h), a CRC-32C of each
// data split as it will be trained on (after --train-limit and --val-split),
// and the checkpoint resumed. Any difference stops every process with the
// same message naming it, rather than two models trained and averaged, or a
// collective mismatch deep in the transport.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cifar/dist/distributed.h"
#include "cifar/resolve/run_spec.h"

namespace cifar {

// (what, value) pairs: ("--lr", "0.001"), ("test data", "10000 images, CRC-32C 1a2b3c4d"), ...
using RunFingerprint = std::vector<std::pair<std::string, std::string>>;

// The entry of --amp as the process's machine resolved it (settings of the
// kMachine role are compared so), with why: "bf16 autocast (--amp auto: the
// CPU has AVX512-BF16)".
inline constexpr const char* kPrecisionEntry = "precision";

RunFingerprint run_fingerprint(const RunSpec& plan);

// "" when every rank's fingerprint equals rank 0's; else one message naming,
// for each rank that differs, what and both values, and the way out: the
// same options, the same data, or (precisions resolved apart) an explicit --amp.
std::string describe_disagreement(const std::vector<RunFingerprint>& by_rank);

// Exchanges the fingerprints and throws UsageError (on every rank alike) when
// they differ. One process: nothing to compare.
void check_ranks_agree(Distributed& dist, const RunSpec& plan);

}  // namespace cifar
