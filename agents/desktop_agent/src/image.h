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
// Bilinear interpolation to a larger size (zoom's magnification). Only ever grows.
RgbImage scale_up(const RgbImage& source, int width, int height);
// Either, by the target size (a size between the two per axis shrinks first, then grows).
RgbImage scale_to(const RgbImage& source, int width, int height);

// Draws a mouse pointer (a black arrow with a white rim, its tip at x, y) into `image`;
// the parts outside the image are left out.
void draw_pointer(RgbImage& image, int x, int y);

}  // namespace vc::desktop_agent
