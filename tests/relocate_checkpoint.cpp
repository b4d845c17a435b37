// relocate_checkpoint.cpp: cifar-relocate-checkpoint IN OUT LOCATION[,LOCATION...]
//
// Writes OUT: the checkpoint IN as a GPU run would have written it, its
// storages named as saved from the given devices in turn (for example
// cuda:0,cuda:1), resealed (tests/io/storage_locations.h). For
// tests/cli/checkpoint_anywhere.sh, on a machine without a GPU.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "io/storage_locations.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: cifar-relocate-checkpoint IN OUT LOCATION[,LOCATION...]\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("cannot read {}", argv[1]));
    std::ostringstream whole;
    whole << in.rdbuf();
    std::vector<std::string> locations;
    std::istringstream list(argv[3]);
    for (std::string one; std::getline(list, one, ',');) locations.push_back(one);
    const std::string out = cifar::test::relocate_checkpoint(whole.str(), locations);
    std::ofstream(argv[2], std::ios::binary) << out;
    const auto where = cifar::test::storage_locations(cifar::test::checkpoint_payload(out));
    std::cout << fmt::format("{}: {} storages, the first on {}\n", argv[2], where.size(),
                             where.empty() ? "nothing" : where.front());
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
