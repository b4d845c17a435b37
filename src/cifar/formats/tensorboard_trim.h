// tensorboard_trim.h: an event file cut back to a step, for a resumed run.
//
// A run hands its TensorBoard records to the file as it goes (at every
// progress line), so a run killed or failed after its last checkpoint leaves
// steps past it, which its resumed run writes again. Resuming, the run drops
// those records from the folder's earlier event files, as metrics.csv drops
// its rows past the checkpoint, and begins its own file with TensorBoard's
// purge marker (TensorBoardWriter::purge_from) for a TensorBoard that still
// has an old file open.
#pragma once

#include <cstdint>
#include <filesystem>

namespace cifar {

// Keeps the records of the event file `file` whose step is at most
// `last_step`, and drops the rest; a torn or damaged record ends the file
// (it and all after it are dropped, as TensorBoard's reader stops there).
// The file is rewritten (whole, renamed into place) only when something is
// dropped. Returns how many records were dropped. std::runtime_error naming
// the file when it cannot be read or written.
int64_t drop_events_after(const std::filesystem::path& file, int64_t last_step);

}  // namespace cifar
