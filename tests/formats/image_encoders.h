// image_encoders.h: PNG and JPEG files for the tests, written with libpng's
// and libjpeg-turbo's own encoders (tests/formats/test_image.cpp varies the
// JPEG encoding through JpegSpec; the image-folder tests take the defaults).
#pragma once

#include <png.h>
// clang-format off
#include <cstdio>
#include <jpeglib.h>
// clang-format on
#include <torch/torch.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace cifar::test {

// (H, W, C) uint8 -> PNG bytes (C = 1, 3 or 4).
inline std::string encode_png(const torch::Tensor& hwc_in) {
  const auto hwc = hwc_in.contiguous();
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(hwc.size(1));
  image.height = static_cast<png_uint_32>(hwc.size(0));
  const int64_t c = hwc.size(2);
  image.format = c == 1 ? PNG_FORMAT_GRAY : c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, hwc.data_ptr(), 0, nullptr)) {
    throw std::runtime_error("png_image_write_to_memory failed");
  }
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&image, out.data(), &size, 0, hwc.data_ptr(), 0, nullptr)) {
    throw std::runtime_error("png_image_write_to_memory failed");
  }
  out.resize(size);
  return out;
}

// How a test JPEG is written: libjpeg-turbo's defaults (JFIF, YCbCr 4:2:0,
// quality 95, baseline) unless changed here.
struct JpegSpec {
  std::string name;
  int quality = 95;
  int luma_h = 2, luma_v = 2;  // luma sampling factors: 2x2 is 4:2:0, 1x1 4:4:4
  bool progressive = false, arithmetic = false, rgb_coded = false, exif_rotated = false;
  bool adobe_marker = true;  // CMYK: libjpeg writes Adobe's marker unless told not to
  int ac_refinements = 0;    // grey, > 0: a valid progression of 1 + 63 x (1 + N) scans
  int restart_rows = 0;
};

// An Exif APP1 segment whose Orientation tag (0x0112) is 6: "rotate 90".
inline const std::string kExifRotate90{
    "Exif\0\0MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0", 30};

// (H, W, 1, 3 or 4) uint8 -> JPEG bytes (4: CMYK samples, stored as given).
inline std::string encode_jpeg(const torch::Tensor& hwc, const JpegSpec& spec = {}) {
  jpeg_compress_struct info{};
  jpeg_error_mgr err{};
  info.err = jpeg_std_error(&err);
  jpeg_create_compress(&info);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(hwc.size(1));
  info.image_height = static_cast<JDIMENSION>(hwc.size(0));
  info.input_components = static_cast<int>(hwc.size(2));
  info.in_color_space = hwc.size(2) == 1 ? JCS_GRAYSCALE : hwc.size(2) == 4 ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&info);
  info.write_Adobe_marker = spec.adobe_marker && hwc.size(2) == 4 ? TRUE : FALSE;
  jpeg_set_quality(&info, spec.quality, TRUE);
  if (spec.rgb_coded) jpeg_set_colorspace(&info, JCS_RGB);
  info.comp_info[0].h_samp_factor = spec.luma_h;
  info.comp_info[0].v_samp_factor = spec.luma_v;
  if (spec.progressive) jpeg_simple_progression(&info);
  std::vector<jpeg_scan_info> scans;  // the DC, then each AC coefficient in 1 + N passes
  if (spec.ac_refinements > 0) {
    const int first_al = spec.ac_refinements;
    scans.push_back({1, {0}, 0, 0, 0, 0});
    for (int k = 1; k <= 63; ++k) {
      scans.push_back({1, {0}, k, k, 0, first_al});
      for (int al = first_al; al > 0; --al) scans.push_back({1, {0}, k, k, al, al - 1});
    }
    info.scan_info = scans.data();
    info.num_scans = static_cast<int>(scans.size());
  }
  info.arith_code = spec.arithmetic ? TRUE : FALSE;
  info.restart_in_rows = spec.restart_rows;
  jpeg_start_compress(&info, TRUE);
  if (spec.exif_rotated) {
    jpeg_write_marker(&info, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(kExifRotate90.data()),
                      static_cast<unsigned>(kExifRotate90.size()));
  }
  const auto* base = hwc.contiguous().data_ptr<uint8_t>();
  while (info.next_scanline < info.image_height) {
    auto* row = const_cast<JSAMPROW>(base + info.next_scanline * info.image_width *
                                                static_cast<unsigned>(info.input_components));
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::string out(reinterpret_cast<char*>(buffer), size);
  free(buffer);
  return out;
}

}  // namespace cifar::test
