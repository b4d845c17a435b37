// image_folder_dump.cpp: cifar-image-folder-dump, a test tool that reads a
// split of an image folder (data/image_folder.h) and writes what the reader
// returned as CIFAR-style records, for tests/cli/image_folder_roundtrip.sh to
// compare with the binary files the folder was made from.
//
//   cifar-image-folder-dump DIR train|test OUT [CACHE_DIR]
//
// OUT: one record per image, in the reader's order: the label byte, then the
// 3,072 pixel bytes (R, G, B planes). OUT.names: the class names, one a line.
// The log says whether the images came from the cache.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "cifar/data/image_folder.h"

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: cifar-image-folder-dump DIR train|test OUT [CACHE_DIR]\n");
    return 2;
  }
  try {
    const std::string split_name = argv[2];
    const auto split = split_name == "test" ? cifar::Split::kTest : cifar::Split::kTrain;
    cifar::ImageFolderOptions options;
    if (argc == 5) options.cache_dir = argv[4];
    const auto data = cifar::read_image_folder(argv[1], split, options);
    std::ofstream out(argv[3], std::ios::binary);
    const auto images = data.images.contiguous();
    const int64_t bytes = images.size(1) * images.size(2) * images.size(3);  // one image
    for (int64_t i = 0; i < data.size(); ++i) {
      out.put(static_cast<char>(data.labels[i].item<int64_t>()));
      out.write(reinterpret_cast<const char*>(images.data_ptr<uint8_t>()) + i * bytes, bytes);
    }
    std::ofstream names(std::string(argv[3]) + ".names");
    for (const auto& name : data.class_names) names << name << "\n";
    return out && names ? 0 : 1;
  } catch (const std::exception& error) {
    spdlog::error("{}", error.what());
    return 1;
  }
}
