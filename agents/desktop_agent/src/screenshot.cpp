// screenshot.cpp — XGetImage of the root window, converted to RGB, scaled, PNG, base64.
#include "screenshot.h"

#include <algorithm>
#include <cmath>

#include <X11/Xutil.h>

#include "image.h"
#include "image_encode.h"
#include "png_encode.h"

namespace vc::desktop_agent {
namespace {

int mask_shift(unsigned long mask) {
  int shift = 0;
  while (mask != 0 && (mask & 1) == 0) {
    mask >>= 1;
    ++shift;
  }
  return shift;
}

int mask_bits(unsigned long mask) {
  int bits = 0;
  for (; mask != 0; mask >>= 1) bits += static_cast<int>(mask & 1);
  return bits;
}

std::uint8_t channel(unsigned long pixel, unsigned long mask, int shift, int bits) {
  const unsigned long value = (pixel & mask) >> shift;
  if (bits == 8) return static_cast<std::uint8_t>(value);
  if (bits <= 0) return 0;
  return static_cast<std::uint8_t>(value * 255 / ((1ul << bits) - 1));
}

RgbImage to_rgb(XImage* image) {
  RgbImage out;
  out.width = image->width;
  out.height = image->height;
  out.pixels.resize(static_cast<std::size_t>(out.width) * out.height * 3);
  const bool common = image->bits_per_pixel == 32 && image->red_mask == 0xff0000 &&
                      image->green_mask == 0xff00 && image->blue_mask == 0xff &&
                      image->byte_order == LSBFirst;
  std::uint8_t* o = out.pixels.data();
  if (common) {
    // BGRX in memory: the layout of every 24-bit TrueColor server on little-endian hosts.
    for (int y = 0; y < out.height; ++y) {
      const auto* line = reinterpret_cast<const std::uint8_t*>(image->data) +
                         static_cast<std::size_t>(y) * image->bytes_per_line;
      for (int x = 0; x < out.width; ++x) {
        o[0] = line[x * 4 + 2];
        o[1] = line[x * 4 + 1];
        o[2] = line[x * 4];
        o += 3;
      }
    }
    return out;
  }
  const int rs = mask_shift(image->red_mask), rb = mask_bits(image->red_mask);
  const int gs = mask_shift(image->green_mask), gb = mask_bits(image->green_mask);
  const int bs = mask_shift(image->blue_mask), bb = mask_bits(image->blue_mask);
  for (int y = 0; y < out.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      const unsigned long pixel = XGetPixel(image, x, y);
      o[0] = channel(pixel, image->red_mask, rs, rb);
      o[1] = channel(pixel, image->green_mask, gs, gb);
      o[2] = channel(pixel, image->blue_mask, bs, bb);
      o += 3;
    }
  }
  return out;
}

}  // namespace

json rect_json(const Rect& rect) {
  return json{{"x", rect.x}, {"y", rect.y}, {"width", rect.width}, {"height", rect.height}};
}

Rect region_field(XConnection& x, const Request& request) {
  x.display();
  Rect screen{0, 0, x.width(), x.height()};
  if (!request.has("region")) return screen;
  const json& value = request.body().at("region");
  if (!value.is_object()) throw_invalid("'region' must be an object {x, y, width, height}.");
  Request region(value);
  Rect rect;
  rect.x = static_cast<int>(region.integer("x", 0, x.width() - 1));
  rect.y = static_cast<int>(region.integer("y", 0, x.height() - 1));
  rect.width = static_cast<int>(region.integer("width", 1, x.width()));
  rect.height = static_cast<int>(region.integer("height", 1, x.height()));
  if (rect.x + rect.width > x.width() || rect.y + rect.height > x.height()) {
    throw_invalid("The region (" + std::to_string(rect.x) + ", " + std::to_string(rect.y) + ", " +
                  std::to_string(rect.width) + "x" + std::to_string(rect.height) +
                  ") is not inside the " + x.screen_text() + " screen.");
  }
  return rect;
}

json screen_action(XConnection& x, const Request&) {
  x.display();
  return json{{"width", x.width()}, {"height", x.height()}};
}

json screenshot_action(XConnection& x, const Request& request) {
  const Rect region = region_field(x, request);
  const auto max_edge = request.optional_integer("max_edge", 16, 1000000);
  const bool magnify = request.boolean_or("magnify", false);
  const bool pointer = request.boolean_or("pointer", false);
  ImageBudget budget;
  budget.format = request.choice("format", {"png", "jpeg", "webp"}, "png");
  budget.quality = static_cast<int>(request.integer_or("quality", 1, 100, 80));
  budget.max_bytes = request.optional_integer("max_bytes", 1024, 64 * 1024 * 1024);

  XImage* image = nullptr;
  {
    XConnection::ErrorTrap trap(x);
    image = XGetImage(x.display(), x.root(), region.x, region.y,
                      static_cast<unsigned>(region.width), static_cast<unsigned>(region.height),
                      AllPlanes, ZPixmap);
  }
  if (image == nullptr) {
    x.check_alive();
    throw_failed("The screen could not be read (XGetImage failed).");
  }
  RgbImage rgb = to_rgb(image);
  XDestroyImage(image);
  if (pointer) {
    int px = 0, py = 0;
    x.pointer_position(px, py);
    draw_pointer(rgb, px - region.x, py - region.y);
  }

  const int longer = std::max(rgb.width, rgb.height);
  if (max_edge && (longer > *max_edge || (magnify && longer < *max_edge))) {
    const double factor = static_cast<double>(*max_edge) / std::max(rgb.width, rgb.height);
    int width = static_cast<int>(std::lround(rgb.width * factor));
    int height = static_cast<int>(std::lround(rgb.height * factor));
    // The longer edge is exactly max_edge; rounding must not move it.
    if (rgb.width >= rgb.height) width = static_cast<int>(*max_edge);
    else height = static_cast<int>(*max_edge);
    rgb = scale_to(rgb, std::max(1, width), std::max(1, height));
  }

  const EncodedImage encoded = encode_within(std::move(rgb), budget);
  json result;
  result["mime_type"] = encoded.mime_type;
  result["width"] = encoded.image.width;
  result["height"] = encoded.image.height;
  result["screen_width"] = x.width();
  result["screen_height"] = x.height();
  result["region"] = rect_json(region);
  result["scale"] = static_cast<double>(encoded.image.width) / region.width;
  result["bytes"] = encoded.bytes.size();
  if (encoded.quality > 0) result["quality"] = encoded.quality;
  result["image_base64"] = base64_encode(encoded.bytes);
  return result;
}

}  // namespace vc::desktop_agent
