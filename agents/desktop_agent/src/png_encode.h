// png_encode.h — RGB to PNG in memory with libpng, tuned for speed over size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "image.h"

namespace vc::desktop_agent {

// Empty on failure (libpng reports through longjmp; nothing escapes).
std::vector<std::uint8_t> encode_png(const RgbImage& image);

std::string base64_encode(const std::vector<std::uint8_t>& bytes);

}  // namespace vc::desktop_agent
