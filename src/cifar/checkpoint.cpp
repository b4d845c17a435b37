// checkpoint.cpp: encoding, validating and atomically writing checkpoints.
#include "cifar/checkpoint.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "cifar/errors.h"
#include "cifar/optim.h"

namespace cifar {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

[[noreturn]] void fail(const std::string& source, const std::string& problem) {
  throw std::runtime_error(fmt::format("checkpoint {}: {}", source, problem));
}

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

ModelOptions CheckpointInfo::model_options() const {
  return ModelOptions(model).num_classes(num_classes).stem(parse_stem(stem));
}

json to_json(const CheckpointInfo& info) {
  return json{
      {"model", {{"name", info.model}, {"stem", info.stem}, {"num_classes", info.num_classes}}},
      {"epoch", info.epoch},
      {"step_in_epoch", info.step_in_epoch},
      {"global_step", info.global_step},
      {"test_accuracy", info.test_accuracy},
      {"best_accuracy", info.best_accuracy},
      {"normalization", {{"mean", info.normalization.mean}, {"std", info.normalization.std}}},
      {"class_names", info.class_names},
      {"config", info.config_toml},
      {"libtorch_version", info.libtorch_version},
  };
}

CheckpointInfo checkpoint_info_from_json(const json& j, const std::string& source) {
  CheckpointInfo info;
  try {
    const auto& model = j.at("model");
    info.model = model.at("name").get<std::string>();
    info.stem = model.at("stem").get<std::string>();
    info.num_classes = model.at("num_classes").get<int64_t>();
    info.epoch = j.at("epoch").get<int64_t>();
    info.step_in_epoch = j.at("step_in_epoch").get<int64_t>();
    info.global_step = j.at("global_step").get<int64_t>();
    info.test_accuracy = j.at("test_accuracy").get<double>();
    info.best_accuracy = j.at("best_accuracy").get<double>();
    info.normalization.mean = j.at("normalization").at("mean").get<std::array<double, 3>>();
    info.normalization.std = j.at("normalization").at("std").get<std::array<double, 3>>();
    info.class_names = j.at("class_names").get<std::vector<std::string>>();
    info.config_toml = j.at("config").get<std::string>();
    info.libtorch_version = j.at("libtorch_version").get<std::string>();
  } catch (const json::exception& e) {
    fail(source, fmt::format("header is incomplete or malformed ({}); the file is damaged",
                             first_line(e.what())));
  }
  try {
    check_model_name(info.model);
    parse_stem(info.stem);
  } catch (const UsageError& e) {
    fail(source, e.what());
  }
  if (info.num_classes <= 0 || info.num_classes > 100000) {
    fail(source, fmt::format("has an implausible class count {}", info.num_classes));
  }
  if (info.epoch < 0 || info.step_in_epoch < 0 || info.global_step < 0) {
    fail(source, "has a negative epoch or step count");
  }
  if (info.class_names.size() != static_cast<size_t>(info.num_classes)) {
    fail(source, fmt::format("lists {} class names for {} classes", info.class_names.size(),
                             info.num_classes));
  }
  for (double s : info.normalization.std) {
    if (!(s > 0)) fail(source, "has a non-positive normalisation std");
  }
  return info;
}

CheckpointHeader parse_checkpoint_header(std::span<const uint8_t> bytes,
                                         const std::string& source) {
  constexpr size_t kFixed = sizeof(kCheckpointMagic) + 4 + 4;
  if (bytes.empty()) fail(source, "the file is empty (a write that never finished?)");
  if (bytes.size() < kFixed ||
      std::memcmp(bytes.data(), kCheckpointMagic, sizeof(kCheckpointMagic)) != 0) {
    fail(source,
         "not a cifar-train checkpoint (no CIFARTRN magic at the start); pass a file "
         "written by cifar-train --checkpoint");
  }
  CheckpointHeader header;
  header.version = get_u32(bytes.data() + 8);
  if (header.version > kCheckpointFormatVersion) {
    fail(source, fmt::format("format version {} is newer than this cifar-train reads ({}); "
                             "upgrade cifar-train",
                             header.version, kCheckpointFormatVersion));
  }
  if (header.version == 0) fail(source, "format version 0 is invalid; the file is damaged");
  const uint32_t header_len = get_u32(bytes.data() + 12);
  if (header_len > kMaxHeaderBytes || header_len > bytes.size() - kFixed) {
    fail(source, fmt::format("header claims {} bytes but the file has {} after the magic; the "
                             "file is truncated",
                             header_len, bytes.size() - kFixed));
  }
  json j = json::parse(bytes.begin() + kFixed, bytes.begin() + kFixed + header_len, nullptr,
                       /*allow_exceptions=*/false);
  if (!j.is_object()) fail(source, "header is not valid JSON; the file is damaged");
  header.info = checkpoint_info_from_json(j, source);
  uint64_t payload_size = 0;
  if (auto it = j.find("payload_bytes"); it != j.end() && it->is_number_unsigned()) {
    payload_size = it->get<uint64_t>();
  } else {
    fail(source, "header does not give the payload size; the file is damaged");
  }
  header.payload_offset = kFixed + header_len;
  const size_t available = bytes.size() - header.payload_offset;
  if (payload_size != available) {
    fail(source, fmt::format("payload is {} bytes, header says {}; the file is {}", available,
                             payload_size, available < payload_size ? "truncated" : "damaged"));
  }
  header.payload_size = payload_size;
  return header;
}

std::string encode_checkpoint(const CheckpointInfo& info, ClassifierImpl& model,
                              const Sgd* optimizer) {
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
  const std::string header = j.dump(1);
  std::string out(kCheckpointMagic, sizeof(kCheckpointMagic));
  put_u32(out, kCheckpointFormatVersion);
  put_u32(out, static_cast<uint32_t>(header.size()));
  out += header;
  out += payload;
  return out;
}

void write_file_atomically(const fs::path& path, const std::string& bytes) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::random_device rd;
  const fs::path tmp = dir / fmt::format(".{}.tmp{:08x}", path.filename().string(), rd());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("cannot write {}: {}; choose a writable --checkpoint "
                    "or --run-dir",
                    tmp.string(), errno_text()));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const auto why = errno_text();
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(
          fmt::format("writing {} failed: {} (disk full?)", tmp.string(), why));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const auto why = errno_text();
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("flushing {} failed: {}", tmp.string(), why));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const auto why = errno_text();
    ::unlink(tmp.c_str());
    throw std::runtime_error(
        fmt::format("cannot move {} over {}: {}", tmp.string(), path.string(), why));
  }
  // Make the rename itself durable.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void save_checkpoint(const fs::path& path, const CheckpointInfo& info, ClassifierImpl& model,
                     const Sgd* optimizer) {
  write_file_atomically(path, encode_checkpoint(info, model, optimizer));
}

namespace {

std::string read_whole_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw std::runtime_error(
        fmt::format("checkpoint {} does not exist; train one with cifar-train --checkpoint {}",
                    path.string(), path.string()));
  }
  if (fs::is_directory(path, ec)) {
    throw std::runtime_error(
        fmt::format("checkpoint {} is a directory; pass the .pt file inside it", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot open checkpoint {}", path.string()));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

torch::serialize::InputArchive payload_archive(const LoadedCheckpoint& c, const std::string& src) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(c.bytes.data() + c.header.payload_offset, c.header.payload_size);
  } catch (const c10::Error& e) {
    fail(src,
         fmt::format("the weights cannot be read ({}); the file is damaged", first_line(e.what())));
  }
  return archive;
}

}  // namespace

LoadedCheckpoint load_checkpoint(const fs::path& path) {
  const std::string source = path.string();
  LoadedCheckpoint c;
  c.bytes = read_whole_file(path);
  c.header = parse_checkpoint_header(
      std::span(reinterpret_cast<const uint8_t*>(c.bytes.data()), c.bytes.size()), source);
  c.info = c.header.info;
  c.model = make_model(c.info.model_options());
  auto archive = payload_archive(c, source);
  try {
    torch::serialize::InputArchive model_archive;
    archive.read("model", model_archive);
    c.model->load(model_archive);
  } catch (const c10::Error& e) {
    fail(source,
         fmt::format("its weights do not fit a {} model ({})", c.info.model, first_line(e.what())));
  }
  return c;
}

void load_optimizer_state(const LoadedCheckpoint& c, Sgd& optimizer) {
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
  } catch (const c10::Error& e) {
    throw std::runtime_error(
        fmt::format("the checkpoint's optimizer state does not fit: {}", first_line(e.what())));
  }
}

void ensure_writable(const fs::path& path) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error(fmt::format("cannot create directory {} for {}: {}", dir.string(),
                                         path.string(), ec.message()));
  }
  if (fs::is_directory(path, ec)) {
    throw std::runtime_error(fmt::format("{} is a directory, not a file path", path.string()));
  }
  write_file_atomically(dir / ".cifar-train-write-test", "ok");
  fs::remove(dir / ".cifar-train-write-test", ec);
}

}  // namespace cifar
