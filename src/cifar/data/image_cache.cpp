// image_cache.cpp: the decoded-image cache of image folders (see image_cache.h).
#include "cifar/data/image_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>  // crc32_z; zlib comes with libpng

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "cifar/core/file_io.h"
#include "cifar/core/version.h"
#include "cifar/formats/image.h"  // kMaxImagePixels

namespace cifar {
namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "the image cache is little-endian");

namespace {

constexpr char kMagic[16] = {'C', 'I', 'F', 'A', 'R', 'I', 'M', 'G',
                             'C', 'A', 'C', 'H', 'E', 0,   0,   3};
constexpr uint64_t kMaxManifestBytes = uint64_t{1} << 32;
constexpr uint64_t kMaxSkippedBytes = 1 << 16;  // one skipped file's line

void append_u64(std::string& out, uint64_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// CRC-32 (zlib's, 4 GB/s and more) of bytes, continuing from crc.
uint32_t crc_of(uint32_t crc, const void* data, uint64_t n) {
  return static_cast<uint32_t>(crc32_z(crc, static_cast<const Bytef*>(data), n));
}

// Reads a cache file front to back in pieces, each checksummed while it is
// still in the CPU's caches.
class CacheReader {
 public:
  explicit CacheReader(const fs::path& path)
      : path_(path), fd_(open_regular_file(path, "image cache")) {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw std::runtime_error("cannot stat it");
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~CacheReader() { ::close(fd_); }
  CacheReader(const CacheReader&) = delete;
  CacheReader& operator=(const CacheReader&) = delete;

  uint64_t left() const { return size_ - offset_; }

  void read(void* out, uint64_t n, bool hash = true) {
    if (n > left()) throw std::runtime_error("truncated");
    auto* p = static_cast<char*>(out);
    for (uint64_t done = 0; done < n;) {
      const ssize_t got = ::read(fd_, p + done, std::min<uint64_t>(n - done, kPiece));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw std::runtime_error(got < 0 ? std::strerror(errno) : "truncated");
      if (hash) crc_ = crc_of(crc_, p + done, static_cast<uint64_t>(got));
      done += static_cast<uint64_t>(got);
    }
    offset_ += n;
  }
  // The next `bytes`, mapped from the file rather than copied: the page
  // cache's own pages (private: a write copies the page), checksummed here.
  // Fresh memory costs more than the read itself (each page faulted in and
  // zeroed, on a virtual machine by the host too). The cache is replaced by
  // rename, never shrunk in place, so the mapped pages stay valid.
  torch::Tensor map_bytes(uint64_t bytes) {
    if (bytes > left()) throw std::runtime_error("truncated");
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t start = offset_ / page * page;
    const uint64_t length = offset_ + bytes - start;
    // No MAP_POPULATE: on a writable private mapping it would copy every page.
    void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_,
                        static_cast<off_t>(start));
    if (base == MAP_FAILED) throw std::runtime_error(std::strerror(errno));
    ::madvise(base, length, MADV_WILLNEED);
    auto images = torch::from_blob(
        static_cast<uint8_t*>(base) + (offset_ - start), {static_cast<int64_t>(bytes)},
        [base, length](void*) { ::munmap(base, length); }, torch::kUInt8);
    crc_ = crc_of(crc_, images.data_ptr<uint8_t>(), bytes);
    offset_ += bytes;
    if (::lseek(fd_, static_cast<off_t>(offset_), SEEK_SET) < 0) {
      throw std::runtime_error(std::strerror(errno));
    }
    return images;
  }
  uint64_t u64() {
    uint64_t v = 0;
    read(&v, sizeof v);
    return v;
  }
  std::string text(uint64_t n, uint64_t max) {
    if (n > max || n > left()) throw std::runtime_error("truncated, or a length out of range");
    std::string s(n, '\0');
    read(s.data(), n);
    return s;
  }
  uint32_t crc() const { return crc_; }
  // Whether the rest of the file checksums to its last four bytes: a header
  // that differs from the expected one was then written so (out of date),
  // not damaged.
  bool rest_matches_checksum() {
    if (left() < sizeof(uint32_t)) return false;
    std::vector<char> piece(std::min<uint64_t>(left(), kPiece));
    while (left() > sizeof(uint32_t)) {
      read(piece.data(), std::min<uint64_t>(left() - sizeof(uint32_t), piece.size()));
    }
    uint32_t stored = 0;
    read(&stored, sizeof stored, /*hash=*/false);
    return stored == crc_;
  }

 private:
  fs::path path_;
  int fd_;
  uint64_t size_ = 0;
  uint64_t offset_ = 0;
  uint32_t crc_ = 0;
  static constexpr uint64_t kPiece = 4 << 20;
};

}  // namespace

CacheLookup load_image_cache(const fs::path& path, const std::string& manifest, int64_t kept_side) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return {CacheStatus::kMissing, "", {}};
  if (!fs::is_regular_file(path, ec)) {  // a folder, a FIFO, a dangling link, ...
    return {CacheStatus::kForeign, "it is not a regular file", {}};
  }
  CacheLookup result;
  try {
    CacheReader in(path);
    char magic[16];
    // The magic's name part, "CIFARIMGCACHE": the tool's own file, of any version.
    constexpr size_t kName = 13;
    if (in.left() < sizeof magic) {
      return {CacheStatus::kForeign, "it is too short to be an image cache", {}};
    }
    in.read(magic, sizeof magic);
    if (std::memcmp(magic, kMagic, kName) != 0) {
      return {CacheStatus::kForeign, "it does not start as an image cache does", {}};
    }
    if (std::memcmp(magic, kMagic, sizeof magic) != 0) {
      return {CacheStatus::kStale, "written in another format, by another version of the tool", {}};
    }
    ImageCacheContents& c = result.contents;
    c.manifest = in.text(in.u64(), kMaxManifestBytes);
    if (c.manifest != manifest) {
      if (!in.rest_matches_checksum()) throw std::runtime_error("its checksum does not match");
      return {CacheStatus::kStale, describe_cache_change(c.manifest, manifest), {}};
    }
    const uint64_t n = in.u64();
    const uint64_t skipped = in.u64();
    if (skipped > in.left()) throw std::runtime_error("truncated");
    for (uint64_t i = 0; i < skipped; ++i) {
      uint32_t len = 0;
      in.read(&len, sizeof len);
      c.skipped.push_back(in.text(len, kMaxSkippedBytes));
    }
    if (n > in.left() / (5 * sizeof(int64_t))) throw std::runtime_error("truncated");
    c.labels = torch::empty({static_cast<int64_t>(n)}, torch::kInt64);
    in.read(c.labels.data_ptr<int64_t>(), n * sizeof(int64_t));
    c.sizes = torch::empty({static_cast<int64_t>(n), 2}, torch::kInt64);
    in.read(c.sizes.data_ptr<int64_t>(), 2 * n * sizeof(int64_t));
    std::vector<int64_t> kept(2 * n);
    in.read(kept.data(), 2 * n * sizeof(int64_t));
    uint64_t pixels = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const int64_t h = kept[2 * i], w = kept[2 * i + 1];
      // At most the pixels a decoded image may have (checked side by side
      // first, so that a damaged size cannot overflow the product).
      if (h < 1 || w < 1 || h > kMaxImagePixels || w > kMaxImagePixels ||
          std::min(h, w) > kept_side || h * w > kMaxImagePixels) {
        throw std::runtime_error(fmt::format("image {} is kept as {}x{}, out of range", i, h, w));
      }
      pixels += static_cast<uint64_t>(3 * h * w);
    }
    if (pixels + sizeof(uint32_t) != in.left()) {
      throw std::runtime_error(
          fmt::format("{} bytes where {} images need {}", in.left(), n, pixels + sizeof(uint32_t)));
    }
    const torch::Tensor block = pixels == 0 ? torch::Tensor() : in.map_bytes(pixels);
    int64_t at = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const int64_t h = kept[2 * i], w = kept[2 * i + 1];
      c.kept.push_back(block.narrow(0, at, 3 * h * w).view({3, h, w}));
      at += 3 * h * w;
    }
    const uint32_t expected = in.crc();
    uint32_t stored = 0;
    in.read(&stored, sizeof stored, /*hash=*/false);
    if (stored != expected) throw std::runtime_error("its checksum does not match its contents");
  } catch (const std::exception& e) {
    return {CacheStatus::kDamaged, e.what(), {}};
  }
  result.status = CacheStatus::kHit;
  return result;
}

void save_image_cache(const fs::path& path, const ImageCacheContents& contents) {
  const auto labels = contents.labels.contiguous();
  const auto sizes = contents.sizes.to(torch::kInt64).contiguous();
  const auto n = static_cast<uint64_t>(labels.size(0));
  TORCH_CHECK(sizes.numel() == static_cast<int64_t>(2 * n), "an image cache needs (N, 2) sizes");
  TORCH_CHECK(contents.kept.size() == n, "an image cache needs one kept copy per label");
  std::string head(kMagic, sizeof kMagic);
  append_u64(head, contents.manifest.size());
  head += contents.manifest;
  append_u64(head, n);
  append_u64(head, contents.skipped.size());
  for (const auto& s : contents.skipped) {
    const auto line = s.substr(0, kMaxSkippedBytes);
    const auto len = static_cast<uint32_t>(line.size());
    head.append(reinterpret_cast<const char*>(&len), sizeof len);
    head += line;
  }
  head.append(reinterpret_cast<const char*>(labels.data_ptr<int64_t>()), n * sizeof(int64_t));
  head.append(reinterpret_cast<const char*>(sizes.data_ptr<int64_t>()), 2 * n * sizeof(int64_t));
  for (const torch::Tensor& image : contents.kept) {
    TORCH_CHECK(image.dim() == 3 && image.size(0) == 3 && image.is_contiguous() &&
                    image.scalar_type() == torch::kUInt8,
                "a kept copy must be (3, h, w) uint8, contiguous; got ", image.sizes());
    append_u64(head, static_cast<uint64_t>(image.size(1)));
    append_u64(head, static_cast<uint64_t>(image.size(2)));
  }
  // The copies are written from where they are, not gathered into one buffer.
  std::vector<std::span<const char>> pieces{{head.data(), head.size()}};
  uint32_t crc = crc_of(0, head.data(), head.size());
  for (const torch::Tensor& image : contents.kept) {
    const auto* bytes = reinterpret_cast<const char*>(image.data_ptr<uint8_t>());
    const auto count = static_cast<size_t>(image.numel());
    pieces.emplace_back(bytes, count);
    crc = crc_of(crc, bytes, count);
  }
  std::string tail;
  tail.append(reinterpret_cast<const char*>(&crc), sizeof crc);
  pieces.emplace_back(tail.data(), tail.size());
  ensure_writable(path);
  write_file_atomically(path, pieces);
}

}  // namespace cifar
