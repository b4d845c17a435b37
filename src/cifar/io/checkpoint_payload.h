// checkpoint_payload.h: a checkpoint's payload (LibTorch's archive, a zip of
// data.pkl and one data/N entry per storage) checked before LibTorch loads it.
//
// LibTorch's reader sizes each storage by the element count data.pkl
// declares and fills it from the data/N entry, whatever that entry's length;
// and it gives each tensor the sizes, strides and offset data.pkl says,
// without comparing them with its storage. A file edited and sealed again
// (its checksum recomputed) could so make a tensor read, and a copy into it
// write, past the end of its memory. The check reads the payload once more,
// each storage exactly as long as its entry, and refuses a tensor that
// reaches past its storage's end. The archive LibTorch then loads is checked
// again (check_tensors), its storages sized as data.pkl declares them: an
// entry longer than its count, or a count of 0 (LibTorch then reads
// nothing, and the storage has no memory at all), is caught there.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <string>

namespace cifar {

// std::runtime_error "checkpoint SOURCE: ..." naming the first tensor in `v`
// (objects' state, lists, tuples, dicts, `depth` levels down) that reaches
// past its storage's end, or a nesting past any checkpoint's.
void check_tensors(const c10::IValue& v, const std::string& source, int depth = 0);

// std::runtime_error "checkpoint SOURCE: ..." naming the first tensor that
// reaches past its storage, or the payload that cannot be read.
void check_payload_tensors(const char* data, size_t size, const std::string& source);

}  // namespace cifar
