// image_scale.cpp — separable area averaging in exact integer arithmetic.
//
// Along one axis, source pixel i covers [i*out, (i+1)*out) and output pixel o covers
// [o*in, (o+1)*in) in units of 1/(in*out) of the picture; each overlap length is a weight and
// the weights of one output pixel add up to `in`. Rows are summed first (kept unnormalised,
// times `in_w`), then columns, and one division with rounding ends it: no float drift, and a
// flat area stays exactly its colour.
#include "image.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace vc::desktop_agent {
namespace {

struct Contribution {
  int source;
  std::uint32_t weight;
};

// For each output index, the source indices it covers and their overlaps.
std::vector<std::vector<Contribution>> contributions(int in, int out) {
  std::vector<std::vector<Contribution>> table(static_cast<std::size_t>(out));
  for (int o = 0; o < out; ++o) {
    const std::int64_t begin = static_cast<std::int64_t>(o) * in;
    const std::int64_t end = begin + in;
    int first = static_cast<int>(begin / out);
    for (int i = first; i < in; ++i) {
      const std::int64_t source_begin = static_cast<std::int64_t>(i) * out;
      const std::int64_t source_end = source_begin + out;
      if (source_begin >= end) break;
      const std::int64_t overlap = std::min(end, source_end) - std::max(begin, source_begin);
      if (overlap > 0) table[o].push_back({i, static_cast<std::uint32_t>(overlap)});
    }
  }
  return table;
}

}  // namespace

RgbImage scale_down(const RgbImage& source, int width, int height) {
  const int in_w = source.width;
  const int in_h = source.height;
  width = std::max(1, std::min(width, in_w));
  height = std::max(1, std::min(height, in_h));
  if (width == in_w && height == in_h) return source;

  const auto columns = contributions(in_w, width);
  const auto rows = contributions(in_h, height);

  // Horizontal pass: each value is (sum of weight * sample), i.e. the mean times in_w.
  std::vector<std::uint32_t> horizontal(static_cast<std::size_t>(width) * in_h * 3);
  for (int y = 0; y < in_h; ++y) {
    const std::uint8_t* line = source.pixels.data() + static_cast<std::size_t>(y) * in_w * 3;
    std::uint32_t* out = horizontal.data() + static_cast<std::size_t>(y) * width * 3;
    for (int x = 0; x < width; ++x) {
      std::uint32_t r = 0, g = 0, b = 0;
      for (const Contribution& c : columns[x]) {
        const std::uint8_t* p = line + c.source * 3;
        r += c.weight * p[0];
        g += c.weight * p[1];
        b += c.weight * p[2];
      }
      out[x * 3] = r;
      out[x * 3 + 1] = g;
      out[x * 3 + 2] = b;
    }
  }

  // Vertical pass in 64 bits: 255 * in_w * in_h can pass 2^32 for very large screens.
  RgbImage result;
  result.width = width;
  result.height = height;
  result.pixels.resize(static_cast<std::size_t>(width) * height * 3);
  const std::uint64_t divisor = static_cast<std::uint64_t>(in_w) * in_h;
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(width) * 3);
  for (int y = 0; y < height; ++y) {
    std::fill(sums.begin(), sums.end(), 0);
    for (const Contribution& c : rows[y]) {
      const std::uint32_t* line = horizontal.data() + static_cast<std::size_t>(c.source) * width * 3;
      for (std::size_t i = 0; i < sums.size(); ++i) sums[i] += static_cast<std::uint64_t>(c.weight) * line[i];
    }
    std::uint8_t* out = result.pixels.data() + static_cast<std::size_t>(y) * width * 3;
    for (std::size_t i = 0; i < sums.size(); ++i) {
      out[i] = static_cast<std::uint8_t>((sums[i] + divisor / 2) / divisor);
    }
  }
  return result;
}

RgbImage scale_up(const RgbImage& source, int width, int height) {
  width = std::max(width, source.width);
  height = std::max(height, source.height);
  if (width == source.width && height == source.height) return source;
  RgbImage result;
  result.width = width;
  result.height = height;
  result.pixels.resize(static_cast<std::size_t>(width) * height * 3);
  // Pixel centres map onto pixel centres; weights in 1/256 steps.
  auto sample_table = [](int in, int out) {
    std::vector<std::pair<int, int>> table(static_cast<std::size_t>(out));
    for (int o = 0; o < out; ++o) {
      const double position = (o + 0.5) * in / out - 0.5;
      const int base = std::clamp(static_cast<int>(std::floor(position)), 0, in - 1);
      const int weight = std::clamp(static_cast<int>(std::lround((position - base) * 256)), 0, 256);
      table[o] = {base, base + 1 < in ? weight : 0};
    }
    return table;
  };
  const auto columns = sample_table(source.width, width);
  const auto rows = sample_table(source.height, height);
  const auto at = [&](int x, int y, int c) {
    return static_cast<int>(source.pixels[(static_cast<std::size_t>(y) * source.width + x) * 3 + c]);
  };
  for (int y = 0; y < height; ++y) {
    const auto [y0, wy] = rows[y];
    const int y1 = std::min(y0 + 1, source.height - 1);
    std::uint8_t* out = result.pixels.data() + static_cast<std::size_t>(y) * width * 3;
    for (int x = 0; x < width; ++x) {
      const auto [x0, wx] = columns[x];
      const int x1 = std::min(x0 + 1, source.width - 1);
      for (int c = 0; c < 3; ++c) {
        const int top = at(x0, y0, c) * (256 - wx) + at(x1, y0, c) * wx;
        const int bottom = at(x0, y1, c) * (256 - wx) + at(x1, y1, c) * wx;
        out[x * 3 + c] = static_cast<std::uint8_t>((top * (256 - wy) + bottom * wy + 32768) >> 16);
      }
    }
  }
  return result;
}

RgbImage scale_to(const RgbImage& source, int width, int height) {
  width = std::max(1, width);
  height = std::max(1, height);
  RgbImage shrunk = scale_down(source, std::min(width, source.width), std::min(height, source.height));
  return scale_up(shrunk, width, height);
}

}  // namespace vc::desktop_agent
