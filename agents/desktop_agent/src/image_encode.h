// image_encode.h — RGB to JPEG (libjpeg) and WebP (libwebp) in memory, and the image budget:
// the format, quality and byte cap a screenshot is returned under.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "image.h"

namespace vc::desktop_agent {

// Empty on failure.
std::vector<std::uint8_t> encode_jpeg(const RgbImage& image, int quality);
std::vector<std::uint8_t> encode_webp(const RgbImage& image, int quality);

struct ImageBudget {
  std::string format = "png";            // png, jpeg or webp
  int quality = 80;                      // 1..100, lossy formats
  std::optional<std::int64_t> max_bytes; // the encoded image's limit
};

struct EncodedImage {
  std::vector<std::uint8_t> bytes;
  std::string mime_type;
  int quality = 0;  // the quality used (0 for PNG)
  RgbImage image;   // what was encoded (smaller than given when the cap demanded it)
};

// Encodes `image` within `budget`. Over the byte cap a lossy format first lowers its quality
// (to 60, 40, then 25 at most); then, and for PNG at once, the image shrinks by a quarter per
// step, at most 8 steps. Throws `failed` when even that does not fit, `failed` when encoding
// fails.
EncodedImage encode_within(RgbImage image, const ImageBudget& budget);

}  // namespace vc::desktop_agent
