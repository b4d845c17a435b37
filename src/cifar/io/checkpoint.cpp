// checkpoint.cpp: encoding, saving and loading checkpoints (the checks of a
// file's front and checksum are in checkpoint_header.cpp).
#include "cifar/io/checkpoint.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cifar/core/errors.h"
#include "cifar/core/names.h"
#include "cifar/core/stateful.h"
#include "cifar/formats/checksum.h"
#include "cifar/io/checkpoint_bytes.h"
#include "cifar/io/checkpoint_payload.h"
#include "cifar/model/state_dict.h"

namespace cifar {
namespace fs = std::filesystem;
using nlohmann::json;

using checkpoint_bytes::fail;
using checkpoint_bytes::put_u32;

std::string encode_checkpoint(const CheckpointInfo& info, ClassifierImpl& model,
                              const Stateful* optimizer) {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive model_archive;
  model.save(model_archive);
  archive.write("model", model_archive);
  if (optimizer != nullptr) {
    torch::serialize::OutputArchive optimizer_archive;
    optimizer->save(optimizer_archive);
    archive.write("optimizer", optimizer_archive);
  }
  std::string payload;
  archive.save_to([&payload](const void* data, size_t size) {
    payload.append(static_cast<const char*>(data), size);
    return size;
  });

  json j = to_json(info);
  j["payload_bytes"] = static_cast<uint64_t>(payload.size());
  j["has_optimizer"] = optimizer != nullptr;
  // Text that is not UTF-8 (a name from a file) becomes U+FFFD, never an exception.
  const std::string header = j.dump(1, ' ', false, json::error_handler_t::replace);
  std::string out(kCheckpointMagic, sizeof(kCheckpointMagic));
  put_u32(out, kCheckpointFormatVersion);
  put_u32(out, static_cast<uint32_t>(header.size()));
  out += header;
  out += payload;
  const Sha256Digest digest =
      sha256(std::span(reinterpret_cast<const uint8_t*>(out.data()), out.size()));
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return out;
}

void save_checkpoint(const fs::path& path, const CheckpointInfo& info, ClassifierImpl& model,
                     const Stateful* optimizer) {
  write_file_atomically(path, encode_checkpoint(info, model, optimizer));
}

namespace {

// What to do about a checkpoint that is not there: in a run folder (its
// config.toml beside it), the run's other checkpoint and the way on, never
// a new run writing into that folder; elsewhere, a run that writes it.
std::string missing_checkpoint_hint(const fs::path& path) {
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_regular_file(folder / "config.toml", ec)) {
    return fmt::format("train one with cifar-train --checkpoint {}", shell_word(path.string()));
  }
  const fs::path last = folder / "last.pt";
  if (path.filename() != "last.pt" && fs::is_regular_file(last, ec)) {
    return fmt::format(
        "its run folder holds {}: evaluate that, or go on with the run (cifar-train --config {} "
        "--resume {}), which writes best.pt at its next epoch's end",
        last.string(), shell_word((folder / "config.toml").string()), shell_word(last.string()));
  }
  return fmt::format(
      "its run folder {} holds no checkpoint: the run stopped before its first epoch ended; "
      "train it again (cifar-train --config {} --overwrite)",
      folder.string(), shell_word((folder / "config.toml").string()));
}

std::string read_checkpoint_file(const fs::path& path) {
  return read_file(path, kMaxCheckpointBytes, "checkpoint", missing_checkpoint_hint(path));
}

// The payload's archive, every tensor on the CPU whatever device it was
// saved from (a GPU run saves from cuda:N): a checkpoint loads on any
// machine, and the caller moves the model where it runs. load_checkpoint
// checks its tensors once (check_archive_tensors); the optimizer's later read
// of the same bytes does not again.
torch::serialize::InputArchive payload_archive(const LoadedCheckpoint& c, const std::string& src) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(c.bytes.data() + c.header.payload_offset, c.header.payload_size,
                      torch::Device(torch::kCPU));
  } catch (const std::exception& e) {  // c10::Error; std::out_of_range for a renamed entry
    fail(src,
         fmt::format("the weights cannot be read ({}); the file is damaged", first_line(e.what())));
  }
  return archive;
}

// Every tensor of the archive LibTorch loaded within its storage, as
// data.pkl sizes them (check_payload_tensors compares them with the zip's).
void check_archive_tensors(torch::serialize::InputArchive& archive, const std::string& src) {
  for (const std::string& key : archive.keys()) {
    c10::IValue value;
    archive.read(key, value);
    check_tensors(value, src);
  }
}

}  // namespace

LoadedCheckpoint load_checkpoint(const fs::path& path, const std::string& weights_option) {
  const std::string source = path.string();
  LoadedCheckpoint c;
  c.bytes = read_checkpoint_file(path);
  c.header = parse_checkpoint_header(
      std::span(reinterpret_cast<const uint8_t*>(c.bytes.data()), c.bytes.size()), source,
      weights_option);
  if (!c.header.verified) {
    spdlog::warn(
        "checkpoint {} has format version {}, written before checkpoints carried a checksum: "
        "it cannot be verified, so damage to it would go unnoticed (saving it again with this "
        "cifar-train adds a checksum)",
        source, c.header.version);
  }
  c.info = c.header.info;
  c.model = make_model(c.info.model_options());
  check_payload_tensors(c.bytes.data() + c.header.payload_offset, c.header.payload_size, source);
  auto archive = payload_archive(c, source);
  check_archive_tensors(archive, source);
  try {
    torch::serialize::InputArchive model_archive;
    archive.read("model", model_archive);
    c.model->load(model_archive);
  } catch (const std::exception& e) {  // c10::Error; std::out_of_range for a renamed entry
    fail(source, fmt::format("its weights do not fit {} model ({})", a_or_an(c.info.model),
                             first_line(e.what())));
  }
  check_weight_values(*c.model, source);  // NaN/inf in a re-sealed checkpoint, named
  return c;
}

void load_optimizer_state(const LoadedCheckpoint& c, Stateful& optimizer) {
  const std::string source = "(resume)";
  auto archive = payload_archive(c, source);
  torch::serialize::InputArchive optimizer_archive;
  if (!archive.try_read("optimizer", optimizer_archive)) {
    throw std::runtime_error(
        "the checkpoint holds no optimizer state, so it cannot be resumed; "
        "start a new run from it instead");
  }
  try {
    optimizer.load(optimizer_archive);
  } catch (const std::exception& e) {  // c10::Error; std::out_of_range for a renamed entry
    throw std::runtime_error(
        fmt::format("the checkpoint's optimizer state does not fit: {}", first_line(e.what())));
  }
}

}  // namespace cifar
