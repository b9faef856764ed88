// image.h — an 8-bit RGB picture, the one format the screenshot path works in.
#pragma once

#include <cstdint>
#include <vector>

namespace vc::desktop_agent {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // width * height * 3, rows top to bottom
};

// Area averaging: every output pixel is the mean of the source area it covers, so text and
// thin lines fade instead of vanishing as with sampling. Only ever shrinks.
RgbImage scale_down(const RgbImage& source, int width, int height);

}  // namespace vc::desktop_agent
