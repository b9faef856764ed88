// pointer_draw.cpp — the pointer a screenshot shows when asked: Xvfb's cursor is not part of
// the screen's pixels, so it is drawn in, an arrow 12 px wide and 19 px high like X's default.
#include "image.h"

#include <iterator>

namespace vc::desktop_agent {
namespace {

// The arrow, one row per string: 'X' black, '.' white rim, ' ' transparent.
constexpr const char* kArrow[] = {
    ".",            "..",           ".X.",          ".XX.",         ".XXX.",
    ".XXXX.",       ".XXXXX.",      ".XXXXXX.",     ".XXXXXXX.",    ".XXXXXXXX.",
    ".XXXXXXXXX.",  ".XXXXXX.....", ".XXX.XX.",     ".XX. .XX.",    ".X.  .XX.",
    "..    .XX.",   ".     .XX.",   "       .XX.",  "        ..",
};

}  // namespace

void draw_pointer(RgbImage& image, int x, int y) {
  for (int row = 0; row < static_cast<int>(std::size(kArrow)); ++row) {
    const int py = y + row;
    if (py < 0 || py >= image.height) continue;
    for (int column = 0; kArrow[row][column] != '\0'; ++column) {
      const char cell = kArrow[row][column];
      const int px = x + column;
      if (cell == ' ' || px < 0 || px >= image.width) continue;
      const std::uint8_t value = cell == 'X' ? 0 : 255;
      std::uint8_t* pixel = image.pixels.data() + (static_cast<std::size_t>(py) * image.width + px) * 3;
      pixel[0] = pixel[1] = pixel[2] = value;
    }
  }
}

}  // namespace vc::desktop_agent
