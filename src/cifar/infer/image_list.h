// image_list.h: the image files cifar-predict's arguments name.
//
// A file is taken as given (a file that is no image fails when read, with
// its own error line). A folder is walked recursively, as torchvision's
// ImageFolder walks a class folder (sorted(os.walk(dir, followlinks=True)):
// each folder's files sorted, subfolders in sorted order, a folder reached
// twice through links walked once); in it, hidden entries (names starting
// with '.') and files without a .png, .jpg or .jpeg extension are skipped
// and counted, and a folder that holds no image is reported, not classified.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cifar {

// A named folder that holds no image: reported (and given an output row)
// where its images would have been.
struct EmptyFolder {
  std::string path;     // as named
  std::string problem;  // "DIR holds no PNG or JPEG image ..."
  size_t at = 0;        // its place in ImageList::files: the images before it
};

struct ImageList {
  std::vector<std::string> files;  // in the arguments' order, each folder's sorted
  std::vector<EmptyFolder> empty_folders;
  int64_t skipped_other = 0;               // files in folders without an image extension
  int64_t skipped_hidden = 0;              // hidden entries in folders
  std::vector<std::string> skipped_names;  // the first few skipped, for the log
};

ImageList list_images(const std::vector<std::string>& inputs);

// "skipped 2 files without a .png, .jpg or .jpeg extension and 1 hidden entry
// in the folders (DIR/notes.txt, DIR/a.csv, DIR/.DS_Store)"; empty when
// nothing was skipped.
std::string describe_skipped(const ImageList& list);

}  // namespace cifar
