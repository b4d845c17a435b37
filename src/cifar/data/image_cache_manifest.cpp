// image_cache_manifest.cpp: the key of an image folder's cache, and what
// changed when it no longer matches (see image_cache.h).
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "cifar/core/names.h"
#include "cifar/core/version.h"
#include "cifar/data/image_cache.h"
#include "cifar/formats/image.h"  // image_decoding_version

namespace cifar {

namespace {

// A file name as one field of a tab-separated line.
std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Lines starting "file\t" by name (the rest of the line as value), and the others in order.
struct ManifestLines {
  std::map<std::string, std::string> files;
  std::vector<std::string> settings;
};

ManifestLines split_manifest(const std::string& manifest) {
  ManifestLines lines;
  std::istringstream in(manifest);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("file\t", 0) == 0) {
      const auto name_end = line.find('\t', 5);
      lines.files[line.substr(5, name_end - 5)] = line.substr(name_end + 1);
    } else {
      lines.settings.push_back(line);
    }
  }
  return lines;
}

}  // namespace

std::string image_cache_manifest(const ImageFolderListing& listing,
                                 const ImageFolderOptions& options, const std::string& where) {
  std::string m = "cifar-train image folder cache 3\n";
  m += "decode: PNG (libpng), JPEG (libjpeg-turbo), transparency composited onto white\n";
  m += fmt::format("decoders: {}\n", image_decoding_version());
  m += fmt::format(
      "keep: the shorter side reduced to at most {} px, aspect kept, bilinear with "
      "antialiasing, rounded to uint8\n",
      kept_side_of(options.image));
  m += fmt::format("libtorch: {}\n", libtorch_version());
  m += fmt::format("skip_bad_images: {}\nmax_pixels: {}\n", options.skip_bad_images ? 1 : 0,
                   options.max_pixels);
  if (!where.empty()) m += "where: " + escaped(where) + "\n";
  for (size_t c = 0; c < listing.class_names.size(); ++c) {
    m += fmt::format("class\t{}\t{}\n", c, escaped(listing.class_names[c]));
  }
  for (const auto& f : listing.files) {
    m += fmt::format("file\t{}\t{}\t{}\t{}\n", escaped(f.relative), f.size, f.mtime_ns, f.label);
  }
  return m;
}

// What changed between the manifest a cache was made from and today's.
namespace {
// A manifest line in a message: between single quotes, or as shown_name
// writes a name that is not printable UTF-8 (quoted, with escapes).
std::string quoted(const std::string& text) {
  const std::string shown = shown_name(text);
  return shown == text ? "'" + text + "'" : shown;
}
}  // namespace

std::string describe_cache_change(const std::string& before, const std::string& now) {
  const auto old_lines = split_manifest(before);
  const auto new_lines = split_manifest(now);
  if (old_lines.settings != new_lines.settings) {
    size_t i = 0;
    while (i < old_lines.settings.size() && i < new_lines.settings.size() &&
           old_lines.settings[i] == new_lines.settings[i]) {
      ++i;
    }
    auto at = [](const std::vector<std::string>& v, size_t k) {
      return k < v.size() ? quoted(v[k]) : std::string("nothing");
    };
    return fmt::format("made with other settings or classes ({} then, {} now)",
                       at(old_lines.settings, i), at(new_lines.settings, i));
  }
  int64_t added = 0, removed = 0, changed = 0;
  std::string example;
  for (const auto& [name, rest] : new_lines.files) {
    const auto it = old_lines.files.find(name);
    if (it == old_lines.files.end()) {
      ++added;
    } else if (it->second != rest) {
      ++changed;
      if (example.empty()) example = name;
    }
  }
  for (const auto& [name, rest] : old_lines.files) removed += new_lines.files.count(name) == 0;
  return fmt::format("{} image(s) added, {} removed, {} changed (size or modification time){}",
                     added, removed, changed,
                     example.empty() ? "" : ", e.g. " + shown_name(example));
}

}  // namespace cifar
