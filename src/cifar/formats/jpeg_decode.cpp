// jpeg_decode.cpp: JPEG decoding with libjpeg-turbo (image_decode.h), as
// PIL reads JPEGs: damage libjpeg reads past is read past, a file cut short
// is refused, CMYK is taken as stored inverted.
#include "cifar/formats/image_decode.h"

// jpeglib.h needs <cstdio> first.
// clang-format off
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>  // the message codes: JWRN_JPEG_EOF, ...
// clang-format on
#include <fmt/format.h>

#include <csetjmp>
#include <memory>

namespace cifar {
namespace {

// libjpeg reports errors through a callback that must not return: it jumps
// back to decode_jpeg, which turns the message into an exception.
struct JpegState {
  jpeg_decompress_struct info{};
  jpeg_error_mgr errors{};
  std::jmp_buf jump{};
  char message[JMSG_LENGTH_MAX] = {};
  bool created = false;
  bool too_many_scans = false;
  jpeg_progress_mgr progress{};
  torch::Tensor hwc;  // (H, W, 3) uint8
};

void jpeg_fail(j_common_ptr info) {
  auto* state = reinterpret_cast<JpegState*>(info->client_data);
  (*info->err->format_message)(info, state->message);
  std::longjmp(state->jump, 1);
}

// A warning is corrupt data libjpeg reads past (extraneous bytes before a
// marker, a bad Huffman code), which PIL, and so torchvision's ImageFolder,
// reads past too; only the premature end of a truncated file is an error.
void jpeg_message(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) jpeg_fail(info);
}

// A progressive JPEG of very many scans takes minutes of CPU to decode (a
// known attack); real files have at most a few dozen. libjpeg-turbo's own
// tools stop at 500 (TurboJPEG's scan limit, djpeg -maxscans).
constexpr int kMaxJpegScans = 500;

void jpeg_progress(j_common_ptr info) {
  auto* decompress = reinterpret_cast<j_decompress_ptr>(info);
  if (decompress->input_scan_number > kMaxJpegScans) {
    auto* state = reinterpret_cast<JpegState*>(info->client_data);
    std::snprintf(state->message, sizeof state->message, "more than %d progressive scans",
                  kMaxJpegScans);
    state->too_many_scans = true;
    std::longjmp(state->jump, 1);
  }
}

// Valid JPEGs libjpeg-turbo does not decode, apart from damaged ones.
bool unsupported_jpeg(int code) {
  return code == JERR_BAD_PRECISION || code == JERR_SOF_UNSUPPORTED || code == JERR_NOT_COMPILED ||
         code == JERR_EMPTY_IMAGE;
}

}  // namespace

torch::Tensor decode_jpeg(std::span<const uint8_t> bytes, const std::string& source,
                          int64_t max_pixels) {
  auto state = std::make_unique<JpegState>();
  state->info.err = jpeg_std_error(&state->errors);
  state->errors.error_exit = jpeg_fail;
  state->errors.emit_message = jpeg_message;
  state->info.client_data = state.get();
  if (setjmp(state->jump) != 0) {
    if (state->created) jpeg_destroy_decompress(&state->info);
    if (state->too_many_scans) {
      fail_image(source,
                 fmt::format("a JPEG of {}, refused (decoding it could take minutes): save it "
                             "again as a baseline JPEG",
                             state->message));
    }
    if (unsupported_jpeg(state->errors.msg_code)) {
      fail_image(source,
                 fmt::format("a kind of JPEG libjpeg-turbo does not decode ({}): save it as an "
                             "8-bit baseline or progressive JPEG, or as a PNG",
                             state->message));
    }
    fail_image(source, fmt::format("the JPEG data is damaged or truncated ({})", state->message));
  }
  jpeg_create_decompress(&state->info);
  state->created = true;
  state->progress.progress_monitor = jpeg_progress;
  state->info.progress = &state->progress;
  jpeg_mem_src(&state->info, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&state->info, TRUE);
  const uint64_t pixels = static_cast<uint64_t>(state->info.image_width) * state->info.image_height;
  if (pixels == 0 || pixels > static_cast<uint64_t>(max_pixels)) {
    const uint64_t w = state->info.image_width, h = state->info.image_height;
    jpeg_destroy_decompress(&state->info);
    state->created = false;
    check_image_pixels(w, h, max_pixels, source);
  }
  // Grey and YCbCr become RGB in libjpeg; CMYK and YCCK (print files) come
  // out as CMYK and are converted below.
  const bool cmyk =
      state->info.jpeg_color_space == JCS_CMYK || state->info.jpeg_color_space == JCS_YCCK;
  state->info.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  const int64_t channels = cmyk ? 4 : 3;
  jpeg_start_decompress(&state->info);
  const auto width = state->info.output_width, height = state->info.output_height;
  state->hwc = torch::empty({height, width, channels}, torch::kUInt8);
  auto* base = state->hwc.data_ptr<uint8_t>();
  while (state->info.output_scanline < height) {
    JSAMPROW row = base + static_cast<size_t>(state->info.output_scanline) * width *
                              static_cast<size_t>(channels);
    jpeg_read_scanlines(&state->info, &row, 1);
  }
  jpeg_finish_decompress(&state->info);
  jpeg_destroy_decompress(&state->info);
  state->created = false;
  if (cmyk) {
    // (H, W, 4) -> (H, W, 3): R = (1 - C)(1 - K), and so on. The values are
    // stored inverted (255 - C), as Adobe's files store them and as PIL and
    // torchvision take every CMYK JPEG, with Adobe's marker or without.
    const auto inverted = state->hwc.to(torch::kInt32);  // 255 - C, ..., 255 - K
    const auto k = inverted.narrow(2, 3, 1);
    state->hwc = (inverted.narrow(2, 0, 3) * k + 127).div(255, "floor").to(torch::kUInt8);
  }
  return state->hwc.permute({2, 0, 1}).contiguous();  // (3, H, W)
}

}  // namespace cifar
