// memory.h: how much memory the machine has free, and how much the heap holds.
//
// For the step's memory forecast (train/step_memory.h): the bytes a forward
// pass leaves held on the heap, against what the system can still give.
#pragma once

#include <cstdint>
#include <string>

namespace cifar {

// The bytes this process can still take without swapping or failing: the
// least of /proc/meminfo's MemAvailable (free memory and reclaimable
// caches), its cgroup's memory.max less memory.current (a container's cap),
// and its address-space limit (ulimit -v) less what it maps; 0 when unknown.
int64_t available_memory_bytes();

// The bytes malloc has handed out and not yet taken back (glibc's mallinfo2:
// its arenas' blocks in use and its mapped blocks); 0 on another C library.
int64_t heap_in_use_bytes();

// "1.2 GiB", "300 MiB": a size for a log line.
std::string memory_size(int64_t bytes);

}  // namespace cifar
