// storage_locations.h: rewrite where a LibTorch archive says its tensors live.
//
// A checkpoint written while the model is on a GPU holds an archive (a zip
// written by LibTorch) whose data.pkl names each storage's device, "cuda:0"
// or "cuda:1" where a CPU run writes "cpu". A machine without a GPU cannot
// write such a file, so the tests make one: they take a checkpoint written on
// the CPU and rewrite the location strings in its pickles (a pickle has no
// byte offsets, so a string of another length can replace one), rewrite the
// zip around them (LibTorch's own reader and writer: the CRC-32s and offsets
// come out right) and reseal the checkpoint (its header's payload length and
// its SHA-256, io/checkpoint.h). Test-only: nothing in the tools writes such
// bytes.
#pragma once

#include <string>
#include <vector>

namespace cifar::test {

// The location strings of every storage in the archive's pickles, in order.
std::vector<std::string> storage_locations(const std::string& archive);

// The archive with its i-th storage's location replaced by
// locations[i % locations.size()]. Throws std::runtime_error when the
// archive has no storage (nothing to rewrite: the test would prove nothing).
std::string relocate_archive(const std::string& archive, const std::vector<std::string>& locations);

// A whole checkpoint file's bytes with its payload relocated as above, its
// header's payload length and its checksum made right again.
std::string relocate_checkpoint(const std::string& checkpoint,
                                const std::vector<std::string>& locations);

// The payload (the LibTorch archive) of a checkpoint file's bytes.
std::string checkpoint_payload(const std::string& checkpoint);

}  // namespace cifar::test
