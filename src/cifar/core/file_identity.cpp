// file_identity.cpp: files compared by device and inode, not by spelling.
#include "cifar/core/file_identity.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <optional>

namespace cifar {
namespace fs = std::filesystem;

namespace {

struct Identity {
  std::optional<std::pair<dev_t, ino_t>> target;  // the file itself, links resolved
  std::string entry;                              // "dev:ino/name" of its folder entry
};

std::optional<std::pair<dev_t, ino_t>> stat_id(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

Identity identity_of(const fs::path& path) {
  Identity id;
  id.target = stat_id(path);
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (const auto folder = stat_id(dir)) {
    id.entry = fmt::format("{}:{}/{}", folder->first, folder->second, path.filename().string());
  } else {  // a folder still to be created: compared by its resolved spelling
    std::error_code ec;
    fs::path full = fs::weakly_canonical(fs::absolute(path, ec), ec);
    id.entry = "path:" + (ec ? path.lexically_normal() : full).string();
  }
  return id;
}

bool same(const Identity& a, const Identity& b) {
  return a.entry == b.entry || (a.target && b.target && *a.target == *b.target);
}

std::string refusal(const NamedFile& out, const NamedFile& other, bool other_is_input) {
  return fmt::format(
      "{} {} is the same file as {} {}: writing it would {}; give {} a path of its own", out.role,
      out.path.string(), other.role, other.path.string(),
      other_is_input ? "destroy that input" : "make one output replace the other", out.role);
}

}  // namespace

std::string distinct_files_problem(const std::vector<NamedFile>& inputs,
                                   const std::vector<NamedFile>& outputs) {
  std::vector<Identity> in_ids, out_ids;
  for (const auto& f : inputs) in_ids.push_back(identity_of(f.path));
  for (const auto& f : outputs) out_ids.push_back(identity_of(f.path));
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].path.empty()) continue;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool continued =
          !inputs[i].continues.empty() && inputs[i].continues == outputs[o].continues;
      if (!inputs[i].path.empty() && !continued && same(out_ids[o], in_ids[i])) {
        return refusal(outputs[o], inputs[i], true);
      }
    }
    for (size_t p = 0; p < o; ++p) {
      if (!outputs[p].path.empty() && same(out_ids[o], out_ids[p])) {
        return refusal(outputs[o], outputs[p], false);
      }
    }
  }
  return "";
}

}  // namespace cifar
