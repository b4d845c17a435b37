// crops.cpp: random resized crops and evaluation crops of whole images (crops.h).
#include "cifar/data/crops.h"

#include <cmath>

namespace cifar {

torch::Tensor random_crop_boxes(const torch::Tensor& sizes, double min_scale, at::Generator& gen) {
  TORCH_CHECK(sizes.dim() == 2 && sizes.size(1) == 2, "random_crop_boxes needs (N, 2) sizes, got ",
              sizes.sizes());
  constexpr int64_t kTries = 10;  // torchvision's
  const double lo = std::log(3.0 / 4.0), hi = std::log(4.0 / 3.0);
  const int64_t n = sizes.size(0);
  const auto f64 = torch::TensorOptions().dtype(torch::kDouble);
  const auto hw = sizes.to(torch::kDouble);
  const auto H = hw.select(1, 0).unsqueeze(1), W = hw.select(1, 1).unsqueeze(1);  // (N, 1)
  // (N, tries) each: the area share, the log aspect ratio, the corner's draws.
  const auto area = H * W * (torch::rand({n, kTries}, gen, f64) * (1.0 - min_scale) + min_scale);
  const auto ratio = torch::exp(torch::rand({n, kTries}, gen, f64) * (hi - lo) + lo);
  const auto u_top = torch::rand({n, kTries}, gen, f64);
  const auto u_left = torch::rand({n, kTries}, gen, f64);
  const auto w = torch::sqrt(area * ratio).round();  // half to even, as Python's round
  const auto h = torch::sqrt(area / ratio).round();
  const auto fits = (w > 0) & (w <= W) & (h > 0) & (h <= H);  // (N, tries)
  // The first try that fits (argmax finds the first true), else the fallback.
  const auto any = fits.any(1);                                     // (N)
  const auto first = fits.to(torch::kInt8).argmax(1).unsqueeze(1);  // (N, 1)
  auto pick = [&](const torch::Tensor& t) { return t.gather(1, first).squeeze(1); };
  auto ch = pick(h), cw = pick(w);
  auto top = (pick(u_top) * (H.squeeze(1) - ch + 1)).floor();
  auto left = (pick(u_left) * (W.squeeze(1) - cw + 1)).floor();
  // Fallback: the centre crop at the ratio clamped to [3/4, 4/3].
  const auto Hs = H.squeeze(1), Ws = W.squeeze(1);
  const auto in_ratio = Ws / Hs;
  auto fw = torch::where(in_ratio > 4.0 / 3.0, (Hs * 4.0 / 3.0).round(), Ws);
  auto fh = torch::where(in_ratio < 3.0 / 4.0, (Ws / (3.0 / 4.0)).round(), Hs);
  ch = torch::where(any, ch, fh);
  cw = torch::where(any, cw, fw);
  top = torch::where(any, top, torch::div(Hs - fh, 2, "floor"));
  left = torch::where(any, left, torch::div(Ws - fw, 2, "floor"));
  return torch::stack({top / Hs, left / Ws, ch / Hs, cw / Ws}, 1).to(torch::kFloat);  // (N, 4)
}

torch::Tensor eval_crop_boxes(const torch::Tensor& sizes, int64_t side, const ImagePrep& prep) {
  const auto hw = sizes.to(torch::kInt64).contiguous();
  const int64_t n = hw.size(0);
  const auto* p = hw.data_ptr<int64_t>();
  auto boxes = torch::empty({n, 4}, torch::kFloat);
  auto* out = boxes.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    // The region prepare_image keeps, as fractions of the resized image.
    const PrepGeometry g = prep.geometry(p[2 * i], p[2 * i + 1], side);
    const auto h = static_cast<double>(g.height), w = static_cast<double>(g.width);
    out[4 * i + 0] = static_cast<float>(static_cast<double>(g.top) / h);
    out[4 * i + 1] = static_cast<float>(static_cast<double>(g.left) / w);
    out[4 * i + 2] = static_cast<float>(static_cast<double>(side) / h);
    out[4 * i + 3] = static_cast<float>(static_cast<double>(side) / w);
  }
  return boxes;
}

torch::Tensor crop_resize(const torch::Tensor& x, const torch::Tensor& boxes,
                          const torch::Tensor& flips, int64_t side) {
  TORCH_CHECK(x.dim() == 4 && boxes.dim() == 2 && boxes.size(0) == x.size(0) && boxes.size(1) == 4,
              "crop_resize needs (B, C, S, S) images and (B, 4) boxes, got ", x.sizes(), " and ",
              boxes.sizes());
  namespace F = torch::nn::functional;
  const int64_t b = x.size(0);
  const auto box = boxes.to(x.device(), torch::kFloat);
  const auto top = box.select(1, 0), left = box.select(1, 1);
  const auto h = box.select(1, 2), w = box.select(1, 3);
  // grid_sample's coordinates run from -1 to 1 across the image (pixel
  // edges, align_corners false): the box's centre and half-extent there.
  auto sx = w;
  if (flips.defined()) sx = torch::where(flips.to(x.device()), -w, w);
  const auto zero = torch::zeros_like(w);
  const auto theta = torch::stack(
      {torch::stack({sx, zero, 2 * left + w - 1}, 1), torch::stack({zero, h, 2 * top + h - 1}, 1)},
      1);  // (B, 2, 3)
  const auto grid = F::affine_grid(theta, {b, x.size(1), side, side}, /*align_corners=*/false);
  return F::grid_sample(x.to(torch::kFloat), grid,
                        F::GridSampleFuncOptions()
                            .mode(torch::kBilinear)
                            .padding_mode(torch::kBorder)
                            .align_corners(false));  // (B, C, side, side)
}

ImageSplit evaluation_view(const ImageSplit& split) {
  if (!split.whole) return split;
  const WholeImages& whole = *split.whole;
  const auto boxes = eval_crop_boxes(whole.sizes, whole.image_size, whole.prep);
  auto images = torch::empty(
      {split.size(), split.images.size(1), whole.image_size, whole.image_size}, torch::kUInt8);
  constexpr int64_t kChunk = 256;
  for (int64_t start = 0; start < split.size(); start += kChunk) {
    const int64_t count = std::min(kChunk, split.size() - start);
    images.narrow(0, start, count)
        .copy_(crop_resize(split.images.narrow(0, start, count), boxes.narrow(0, start, count),
                           torch::Tensor(), whole.image_size)
                   .round_()
                   .clamp_(0, 255));
  }
  return ImageSplit{images, split.labels, split.class_names, std::nullopt};
}

}  // namespace cifar
