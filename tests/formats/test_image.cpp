// Tests of PNG/JPEG decoding and model input; encoders from the same
// libraries make the files. Every PNG encoding of the same 8-bit pixels
// (colour type, bit depth, palette, interlacing, colour chunks) must decode
// to the same bytes, and a JPEG to what libjpeg itself decodes.
#include <png.h>
#include <zlib.h>
// clang-format off
#include <cstdio>
#include <jpeglib.h>
// clang-format on

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <vector>

#include <catch2/catch.hpp>

#include "cifar/formats/image.h"
#include "formats/image_encoders.h"

using namespace cifar;
using cifar::test::encode_jpeg;
using cifar::test::encode_png;
using cifar::test::JpegSpec;
using cifar::test::kExifRotate90;

namespace {

std::span<const uint8_t> as_span(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// libjpeg's own decode with its defaults, as (C, H, W): the reference.
torch::Tensor libjpeg_decode(const std::string& bytes, J_COLOR_SPACE space) {
  jpeg_decompress_struct info{};
  jpeg_error_mgr err{};
  info.err = jpeg_std_error(&err);
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  jpeg_read_header(&info, TRUE);
  info.out_color_space = space;
  jpeg_start_decompress(&info);
  auto hwc =
      torch::empty({info.output_height, info.output_width, info.output_components}, torch::kUInt8);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = hwc.data_ptr<uint8_t>() + info.output_scanline * info.output_width *
                                                 static_cast<unsigned>(info.output_components);
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return hwc.permute({2, 0, 1});
}

torch::Tensor random_hwc(int64_t h, int64_t w, int64_t c) {
  return torch::randint(0, 256, {h, w, c}, torch::kUInt8);
}

// How a test PNG is written (libpng's low-level writer, so that any colour
// type, bit depth and chunk can be chosen).
struct PngSpec {
  std::string name;
  int bit_depth = 8;         // 16: each value v stored as v * 257; 1, 2, 4: grey/palette
  bool palette = false;      // PLTE of the image's colours, tRNS when it has alpha
  bool trns_opaque = false;  // with palette: a tRNS of 255s
  bool interlace = false;
  int gamma = 0;  // gAMA in units of 1/100000; 0: none
  bool srgb = false, iccp = false, chrm = false, black_bkgd = false;
  int colour_key = -1;  // grey/RGB tRNS: this value (every channel) is transparent
};

// A minimal ICC profile libpng accepts: a header with no tags.
std::vector<png_byte> tiny_icc_profile() {
  std::vector<png_byte> p(132, 0);
  const auto put = [&](size_t at, const char* four) { std::memcpy(&p[at], four, 4); };
  p[3] = 132;  // size
  p[8] = 2;    // version 2.1
  p[9] = 0x10;
  put(12, "mntr");
  put(16, "RGB ");
  put(20, "XYZ ");
  put(36, "acsp");
  const uint32_t d50[3] = {0xf6d6, 0x10000, 0xd32d};  // the PCS illuminant, s15.16
  for (size_t i = 0; i < 3; ++i) {
    for (size_t b = 0; b < 4; ++b)
      p[68 + 4 * i + b] = static_cast<png_byte>(d50[i] >> (24 - 8 * b));
  }
  return p;
}

// (H, W, C) uint8 -> PNG bytes; C = 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA.
std::string write_png(const torch::Tensor& hwc, const PngSpec& spec) {
  const auto h = static_cast<png_uint_32>(hwc.size(0)), w = static_cast<png_uint_32>(hwc.size(1));
  const auto c = static_cast<size_t>(hwc.size(2));
  const auto* px = hwc.contiguous().data_ptr<uint8_t>();
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png)) != 0) FAIL("libpng could not write " << spec.name);
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, size_t n) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<char*>(data), n);
      },
      nullptr);
  const int types[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GA, PNG_COLOR_TYPE_RGB,
                        PNG_COLOR_TYPE_RGBA};
  png_set_IHDR(png, info, w, h, spec.bit_depth,
               spec.palette ? PNG_COLOR_TYPE_PALETTE : types[c - 1],
               spec.interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  std::vector<uint8_t> rows;  // what libpng is given: bytes per sample, packed below 8 bits
  if (spec.palette) {
    std::map<std::array<uint8_t, 4>, int> index;
    std::vector<png_color> colours;
    std::vector<png_byte> alphas;
    for (size_t i = 0; i < size_t{h} * w; ++i) {
      const auto* p = px + i * c;
      const std::array<uint8_t, 4> key{p[0], p[1], p[2], uint8_t(c == 4 ? p[3] : 255)};
      auto [at, fresh] = index.try_emplace(key, static_cast<int>(colours.size()));
      if (fresh) colours.push_back({key[0], key[1], key[2]}), alphas.push_back(key[3]);
      rows.push_back(static_cast<uint8_t>(at->second));
    }
    REQUIRE(colours.size() <= (1u << spec.bit_depth));
    png_set_PLTE(png, info, colours.data(), static_cast<int>(colours.size()));
    if (c == 4 || spec.trns_opaque) {
      png_set_tRNS(png, info, alphas.data(), static_cast<int>(alphas.size()), nullptr);
    }
  } else {
    const int shift = 8 - std::min(spec.bit_depth, 8);  // low depths: v = s * (255 / max)
    for (size_t i = 0; i < size_t{h} * w * c; ++i) {
      if (spec.bit_depth == 16) rows.push_back(px[i]);  // high byte; low byte = v, so v * 257
      rows.push_back(static_cast<uint8_t>(px[i] >> shift));
    }
  }
  if (spec.colour_key >= 0) {
    png_color_16 key{};
    key.gray = key.red = key.green = key.blue =
        static_cast<png_uint_16>(spec.bit_depth == 16 ? spec.colour_key * 257 : spec.colour_key);
    png_set_tRNS(png, info, nullptr, 0, &key);
  }
  if (spec.gamma != 0) png_set_gAMA_fixed(png, info, spec.gamma);
  if (spec.srgb) png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  if (spec.chrm)
    png_set_cHRM_fixed(png, info, 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000);
  const auto icc = tiny_icc_profile();
  if (spec.iccp)
    png_set_iCCP(png, info, "test", 0, icc.data(), static_cast<png_uint_32>(icc.size()));
  png_color_16 black{};
  if (spec.black_bkgd) png_set_bKGD(png, info, &black);
  png_write_info(png, info);
  if (spec.bit_depth < 8) png_set_packing(png);
  std::vector<png_bytep> row_ptrs(h);
  for (png_uint_32 y = 0; y < h; ++y) row_ptrs[y] = rows.data() + rows.size() / h * y;
  png_write_image(png, row_ptrs.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

// (H, W, 4) straight alpha -> (3, H, W) on white: v a / 255 + 255 (1 - a / 255), rounded.
torch::Tensor on_white(const torch::Tensor& hwc4) {
  const auto x = hwc4.to(torch::kInt32);
  const auto a = x.narrow(2, 3, 1);
  const auto v = x.narrow(2, 0, 3) * a + 255 * (255 - a);
  return (v + 127).div(255, "floor").to(torch::kUInt8).permute({2, 0, 1});
}

// Decodes each spec's file of `hwc` and checks it gives `want`; names those that do not.
void check_variants(const torch::Tensor& hwc, const std::vector<PngSpec>& specs,
                    const torch::Tensor& want) {
  for (const auto& spec : specs) {
    const auto got = decode_image(as_span(write_png(hwc, spec)), spec.name + ".png");
    REQUIRE(got.sizes() == want.sizes());
    const auto diff = (got.to(torch::kInt32) - want.to(torch::kInt32)).abs();
    INFO(spec.name << ": " << diff.ne(0).sum().item<int64_t>() << " of " << diff.numel()
                   << " bytes differ, by up to " << diff.max().item<int>());
    CHECK(diff.max().item<int>() == 0);
  }
}

}  // namespace

TEST_CASE("PNG decodes to exact RGB, grey and alpha included", "[image]") {
  const auto rgb = random_hwc(20, 30, 3);
  const auto img = decode_image(as_span(encode_png(rgb)), "a.png");
  CHECK(img.sizes() == c10::IntArrayRef({3, 20, 30}));
  CHECK(torch::equal(img, rgb.permute({2, 0, 1})));
  const auto grey = random_hwc(8, 8, 1);
  CHECK(torch::equal(decode_image(as_span(encode_png(grey)), "g.png"),
                     grey.permute({2, 0, 1}).expand({3, 8, 8})));
  auto rgba = random_hwc(8, 8, 4);
  rgba.select(2, 3).fill_(255);  // opaque: the colours stay as they are
  CHECK(torch::equal(decode_image(as_span(encode_png(rgba)), "a.png"),
                     rgba.narrow(2, 0, 3).permute({2, 0, 1})));
}

TEST_CASE("every PNG encoding of the same pixels decodes to the same bytes", "[image][png]") {
  const auto rgb = random_hwc(21, 30, 3);
  const auto want = rgb.permute({2, 0, 1});
  auto rgba = torch::cat({rgb, torch::full({21, 30, 1}, 255, torch::kUInt8)}, 2);
  check_variants(rgb,
                 {{.name = "rgb8"},
                  {.name = "rgb16", .bit_depth = 16},
                  {.name = "rgb8-adam7", .interlace = true},
                  {.name = "rgb16-adam7", .bit_depth = 16, .interlace = true},
                  {.name = "rgb8-gama45455", .gamma = 45455},
                  {.name = "rgb8-gama100000", .gamma = 100000},
                  {.name = "rgb8-gama55556", .gamma = 55556},
                  {.name = "rgb16-gama45455", .bit_depth = 16, .gamma = 45455},
                  {.name = "rgb8-srgb", .srgb = true},
                  {.name = "rgb16-srgb", .bit_depth = 16, .srgb = true},
                  {.name = "rgb8-iccp", .iccp = true},
                  {.name = "rgb8-chrm-gama100000", .gamma = 100000, .chrm = true}},
                 want);
  check_variants(rgba,
                 {{.name = "rgba8-opaque"},
                  {.name = "rgba16-opaque", .bit_depth = 16},
                  {.name = "rgba8-opaque-adam7", .interlace = true},
                  {.name = "rgba8-opaque-gama100000", .gamma = 100000}},
                 want);
  // Grey pixels: grey, grey+alpha, 16 bits, and 1, 2 and 4 bits when the
  // values fit (v = s * 255 / (2^depth - 1)).
  const auto grey = random_hwc(21, 30, 1);
  const auto grey_want = grey.permute({2, 0, 1}).expand({3, 21, 30});
  const auto ga = torch::cat({grey, torch::full({21, 30, 1}, 255, torch::kUInt8)}, 2);
  check_variants(grey,
                 {{.name = "grey8"},
                  {.name = "grey16", .bit_depth = 16},
                  {.name = "grey8-adam7", .interlace = true},
                  {.name = "grey16-gama45455", .bit_depth = 16, .gamma = 45455},
                  {.name = "grey8-gama100000", .gamma = 100000}},
                 grey_want);
  check_variants(grey.expand({21, 30, 3}).contiguous(), {{.name = "rgb8-grey"}}, grey_want);
  check_variants(ga, {{.name = "ga8-opaque"}, {.name = "ga16-opaque", .bit_depth = 16}}, grey_want);
  for (const int depth : {1, 2, 4}) {
    const int top = (1 << depth) - 1;
    const auto low = (torch::randint(0, top + 1, {21, 30, 1}) * (255 / top)).to(torch::kUInt8);
    check_variants(low, {{.name = "grey" + std::to_string(depth), .bit_depth = depth}},
                   low.permute({2, 0, 1}).expand({3, 21, 30}));
  }
  // A palette image: PLTE at 8 and 4 bits, with a tRNS of 255s, interlaced.
  const auto colours = random_hwc(16, 1, 3).squeeze(1);
  const auto pal = colours.index({torch::randint(0, 16, {21, 30}, torch::kLong)}).contiguous();
  check_variants(pal,
                 {{.name = "rgb8-of-palette"},
                  {.name = "plte8", .palette = true},
                  {.name = "plte4", .bit_depth = 4, .palette = true},
                  {.name = "plte8-trns255", .palette = true, .trns_opaque = true},
                  {.name = "plte4-adam7", .bit_depth = 4, .palette = true, .interlace = true},
                  {.name = "plte8-gama100000", .palette = true, .gamma = 100000}},
                 pal.permute({2, 0, 1}));
}

TEST_CASE("PNG transparency is composited onto white, the same in every encoding", "[image][png]") {
  auto rgba = random_hwc(21, 30, 4);
  rgba.select(2, 3).index_put_({0}, 0);  // a fully transparent row, an opaque one
  rgba.select(2, 3).index_put_({1}, 255);
  check_variants(rgba,
                 {{.name = "rgba8"},
                  {.name = "rgba16", .bit_depth = 16},
                  {.name = "rgba8-adam7", .interlace = true},
                  {.name = "rgba8-gama100000", .gamma = 100000},
                  {.name = "rgba8-black-bkgd", .black_bkgd = true}},
                 on_white(rgba));
  const auto ga = random_hwc(21, 30, 2);
  const auto ga_want =
      on_white(torch::cat({ga.narrow(2, 0, 1).expand({21, 30, 3}), ga.narrow(2, 1, 1)}, 2));
  check_variants(ga, {{.name = "ga8"}, {.name = "ga16", .bit_depth = 16}}, ga_want);
  // A palette with alphas (tRNS) and colour keys (tRNS for grey and RGB).
  const auto colours = random_hwc(16, 1, 4).squeeze(1);
  const auto pal = colours.index({torch::randint(0, 16, {21, 30}, torch::kLong)}).contiguous();
  check_variants(pal, {{.name = "plte8-trns", .palette = true}}, on_white(pal));
  // (7 elsewhere becomes 8, so that only the first row is the key.)
  const auto no7 = [](const torch::Tensor& t) { return t + t.eq(7).to(torch::kUInt8); };
  auto keyed = no7(random_hwc(21, 30, 3));
  keyed.index_put_({0}, 7);  // the first row is the key colour (7, 7, 7): white
  auto keyed_want = keyed.permute({2, 0, 1}).clone();
  keyed_want.select(1, 0).fill_(255);
  check_variants(keyed,
                 {{.name = "rgb8-key", .colour_key = 7},
                  {.name = "rgb16-key", .bit_depth = 16, .colour_key = 7}},
                 keyed_want);
  auto grey_keyed = no7(random_hwc(21, 30, 1));
  grey_keyed.index_put_({0}, 7);
  auto grey_keyed_want = grey_keyed.permute({2, 0, 1}).expand({3, 21, 30}).clone();
  grey_keyed_want.select(1, 0).fill_(255);
  check_variants(grey_keyed, {{.name = "grey8-key", .colour_key = 7}}, grey_keyed_want);
}

TEST_CASE("JPEG decodes to RGB close to what was encoded", "[image]") {
  auto smooth = torch::arange(64, torch::kFloat).view({1, 64, 1}) * 2 + torch::zeros({48, 64, 3});
  const auto hwc = smooth.to(torch::kUInt8).contiguous();
  const auto img = decode_image(as_span(encode_jpeg(hwc)), "a.jpg");
  CHECK(img.sizes() == c10::IntArrayRef({3, 48, 64}));
  const auto diff = (img.to(torch::kFloat) - hwc.permute({2, 0, 1}).to(torch::kFloat)).abs();
  CHECK(diff.mean().item<double>() < 2.0);
}

TEST_CASE("a JPEG decodes as libjpeg decodes it in every encoding (Exif orientation ignored)",
          "[image][jpeg]") {
  // Lossy: each encoding holds other pixels, so each file is checked against
  // libjpeg's own decode of that file.
  const auto ramp = torch::arange(24, torch::kInt32).view({1, 24, 1}) * 9 +
                    torch::arange(16, torch::kInt32).view({16, 1, 1}) * 5;
  const auto hwc = (ramp + torch::randint(0, 4, {16, 24, 3}, torch::kInt32)).to(torch::kUInt8);
  const std::vector<JpegSpec> specs = {
      {.name = "baseline-420"},
      {.name = "baseline-444-q100", .quality = 100, .luma_h = 1, .luma_v = 1},
      {.name = "baseline-422", .luma_h = 2, .luma_v = 1},
      {.name = "baseline-440", .luma_h = 1, .luma_v = 2},
      {.name = "progressive-420", .progressive = true},
      {.name = "progressive-444-q100",
       .quality = 100,
       .luma_h = 1,
       .luma_v = 1,
       .progressive = true},
      {.name = "arithmetic", .arithmetic = true},
      {.name = "rgb-coded-q100", .quality = 100, .luma_h = 1, .luma_v = 1, .rgb_coded = true},
      {.name = "restarts", .restart_rows = 1},
      {.name = "exif-rotate90", .exif_rotated = true}};
  for (const auto& spec : specs) {
    INFO(spec.name);
    const std::string file = encode_jpeg(hwc, spec);
    const auto got = decode_image(as_span(file), spec.name + ".jpg");
    CHECK(torch::equal(got, libjpeg_decode(file, JCS_RGB)));
    const auto error = (got.to(torch::kInt32) - hwc.permute({2, 0, 1}).to(torch::kInt32)).abs();
    CHECK(error.to(torch::kFloat).mean().item<float>() < (spec.quality == 100 ? 1.0f : 4.0f));
  }
  // Orientation 6 would turn the 16x24 image into 24x16: like torchvision's
  // decode_jpeg (apply_exif_orientation=False) it is left as stored.
  const auto rotated =
      decode_image(as_span(encode_jpeg(hwc, {.name = "r", .exif_rotated = true})), "r.jpg");
  CHECK(torch::equal(rotated, decode_image(as_span(encode_jpeg(hwc)), "plain.jpg")));
  // A grey JPEG: R = G = B = libjpeg's grey.
  const auto grey = hwc.narrow(2, 0, 1).contiguous();
  for (const bool progressive : {false, true}) {
    const std::string file = encode_jpeg(grey, {.name = "grey", .progressive = progressive});
    const auto got = decode_image(as_span(file), "grey.jpg");
    CHECK(torch::equal(got, libjpeg_decode(file, JCS_GRAYSCALE).expand({3, 16, 24})));
  }
}

TEST_CASE("a CMYK JPEG is read inverted, as PIL reads it, with Adobe's marker or without",
          "[image][jpeg]") {
  const auto samples = random_hwc(8, 8, 4);
  const JpegSpec exact{.name = "cmyk", .quality = 100, .luma_h = 1, .luma_v = 1};
  JpegSpec bare = exact;
  bare.adobe_marker = false;
  const std::string marked = encode_jpeg(samples, exact), plain = encode_jpeg(samples, bare);
  REQUIRE(plain.size() < marked.size());  // the marker left out
  // Each stored sample s is 255 - ink (PIL's "CMYK;I"): R = s_C s_K / 255.
  const auto s = libjpeg_decode(plain, JCS_CMYK).to(torch::kInt32);  // (4, H, W)
  const auto want = (s.narrow(0, 0, 3) * s.narrow(0, 3, 1) + 127).div(255, "floor");
  CHECK(torch::equal(decode_image(as_span(plain), "plain.jpg").to(torch::kInt32), want));
  CHECK(
      torch::equal(decode_image(as_span(marked), "marked.jpg"), decode_image(as_span(plain), "p")));
}

TEST_CASE("a JPEG's recoverable damage is read past, as PIL reads it, and a cut file refused",
          "[image][jpeg]") {
  const std::string clean = encode_jpeg(random_hwc(16, 16, 3));
  std::string extra = clean;  // "Corrupt JPEG data: 3 extraneous bytes before marker 0xdb"
  extra.insert(clean.find("\xff\xdb"), std::string(3, '\0'));
  CHECK(torch::equal(decode_image(as_span(extra), "extra.jpg"),
                     decode_image(as_span(clean), "clean.jpg")));
  CHECK_THROWS_WITH(decode_image(as_span(clean.substr(0, clean.size() - 40)), "cut.jpg"),
                    Catch::Contains("cut.jpg: the JPEG data is damaged or truncated (Premature "
                                    "end of JPEG file)"));
  // 1 + 63 x 9 = 568 valid progressive scans: past libjpeg-turbo's limit of 500.
  const std::string scans = encode_jpeg(random_hwc(8, 8, 1), {.name = "s", .ac_refinements = 8});
  CHECK_THROWS_WITH(decode_image(as_span(scans), "scans.jpg"),
                    Catch::Contains("scans.jpg: a JPEG of more than 500 progressive scans, "
                                    "refused"));
  std::string deep = clean;  // 12-bit samples: valid, but not decoded here (nor by PIL)
  deep[clean.find("\xff\xc0") + 4] = 12;
  CHECK_THROWS_WITH(decode_image(as_span(deep), "deep.jpg"),
                    Catch::Contains("deep.jpg: a kind of JPEG libjpeg-turbo does not decode "
                                    "(Unsupported JPEG data precision 12)"));
}

TEST_CASE("bad image files get one clear error each", "[image]") {
  const auto refuse = [](const std::string& bytes, const std::string& words,
                         int64_t cap = kMaxImagePixels) {
    CAPTURE(words);
    REQUIRE_THROWS_WITH(decode_image(as_span(bytes), "bad.img", cap),
                        Catch::Contains("bad.img") && Catch::Contains(words));
  };
  refuse("", "empty");
  refuse("GIF89a....", "not a PNG or JPEG");
  const std::string png = encode_png(random_hwc(64, 64, 3));
  refuse(png.substr(0, png.size() / 2), "PNG");
  // Without its IEND chunk (the last 12 bytes) every pixel is there: read, as PIL reads it.
  CHECK(torch::equal(decode_image(as_span(png.substr(0, png.size() - 12)), "no-iend.png"),
                     decode_image(as_span(png), "whole.png")));
  const std::string jpeg = encode_jpeg(random_hwc(64, 64, 3));
  refuse(jpeg.substr(0, jpeg.size() / 2), "damaged or truncated");
  refuse(png, "more than the 1000 allowed", 1000);
  refuse(jpeg, "more than the 1000 allowed", 1000);
  // A PNG whose header claims 100000 x 100000 pixels (valid CRC) is refused
  // before any decoding.
  std::string huge = png;
  const auto put32 = [&](size_t at, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) huge[at + i] = static_cast<char>(v >> (24 - 8 * i));
  };
  put32(16, 100000);
  put32(20, 100000);
  put32(29, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(huge.data() + 12), 17)));
  refuse(huge, "100000x100000");
}

TEST_CASE("model input: normalised, resized with antialiasing", "[image]") {
  const Normalization norm{{0.5, 0.25, 0.0}, {0.5, 0.25, 1.0}};
  const auto img = torch::full({3, 32, 32}, 255, torch::kUInt8);
  const auto x = image_to_input(img, norm, 32);
  CHECK(x.sizes() == c10::IntArrayRef({3, 32, 32}));
  CHECK(x[0][0][0].item<float>() == Approx(1.0));
  CHECK(x[1][0][0].item<float>() == Approx(3.0));
  CHECK(x[2][0][0].item<float>() == Approx(1.0));
  // Vertical stripes 255,0,0,0 at a 4x reduction: antialiasing averages them
  // (63.75); plain bilinear would sample between two dark columns (0).
  auto stripes = torch::zeros({3, 128, 128}, torch::kUInt8);
  stripes.index_put_({torch::indexing::Slice(), torch::indexing::Slice(),
                      torch::indexing::Slice(0, torch::indexing::None, 4)},
                     255);
  const Normalization identity{{0, 0, 0}, {1, 1, 1}};
  const auto small = image_to_input(stripes, identity, 32) * 255;
  CHECK(small.sizes() == c10::IntArrayRef({3, 32, 32}));
  CHECK(small.mean().item<double>() == Approx(63.75).margin(0.5));
  CHECK(small.std().item<double>() < 20);
  // The input is the image an image folder stores (resize_image's, rounded to
  // uint8), so cifar-predict on a file sees what cifar-eval sees in its folder.
  torch::manual_seed(3);
  const auto odd = torch::randint(0, 256, {3, 57, 41}, torch::kUInt8);
  CHECK(torch::allclose(image_to_input(odd, identity, 32) * 255,
                        resize_image(odd, 32).to(torch::kFloat), /*rtol=*/0, /*atol=*/1e-3));
}
