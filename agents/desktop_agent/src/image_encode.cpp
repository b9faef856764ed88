// image_encode.cpp — libjpeg's compressor writing to memory, libwebp's one-call encoder, and
// the loop that keeps an image under its byte cap.
#include "image_encode.h"

#include <cstdio>
#include <cstdlib>
#include <iterator>

#include <csetjmp>

#include <jpeglib.h>
#include <webp/encode.h>

#include "png_encode.h"
#include "protocol.h"

namespace vc::desktop_agent {
namespace {

struct JpegError {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
};

void jpeg_fail(j_common_ptr info) {
  std::longjmp(reinterpret_cast<JpegError*>(info->err)->jump, 1);
}

// Kept free of C++ objects with destructors: libjpeg reports errors through longjmp.
bool write_jpeg(const RgbImage& image, int quality, unsigned char** buffer, unsigned long* size) {
  jpeg_compress_struct info;
  JpegError error;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = jpeg_fail;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    return false;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, buffer, size);
  info.image_width = static_cast<JDIMENSION>(image.width);
  info.image_height = static_cast<JDIMENSION>(image.height);
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.pixels.data() +
                                        static_cast<std::size_t>(info.next_scanline) * image.width * 3);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  return true;
}

std::vector<std::uint8_t> encode(const RgbImage& image, const std::string& format, int quality) {
  if (format == "jpeg") return encode_jpeg(image, quality);
  if (format == "webp") return encode_webp(image, quality);
  return encode_png(image);
}

}  // namespace

std::vector<std::uint8_t> encode_jpeg(const RgbImage& image, int quality) {
  std::vector<std::uint8_t> out;
  if (image.width <= 0 || image.height <= 0) return out;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (write_jpeg(image, quality, &buffer, &size) && buffer != nullptr) {
    out.assign(buffer, buffer + size);
  }
  std::free(buffer);
  return out;
}

std::vector<std::uint8_t> encode_webp(const RgbImage& image, int quality) {
  std::vector<std::uint8_t> out;
  if (image.width <= 0 || image.height <= 0) return out;
  std::uint8_t* buffer = nullptr;
  const std::size_t size = WebPEncodeRGB(image.pixels.data(), image.width, image.height,
                                         image.width * 3, static_cast<float>(quality), &buffer);
  if (size > 0 && buffer != nullptr) out.assign(buffer, buffer + size);
  WebPFree(buffer);
  return out;
}

EncodedImage encode_within(RgbImage image, const ImageBudget& budget) {
  const bool lossy = budget.format != "png";
  int quality = budget.quality;
  static constexpr int kLowerQualities[] = {60, 40, 25};
  std::size_t lowered = 0;
  for (int shrink = 0;; ) {
    std::vector<std::uint8_t> bytes = encode(image, budget.format, quality);
    if (bytes.empty()) throw_failed("The screenshot could not be encoded as " + budget.format + ".");
    if (!budget.max_bytes || static_cast<std::int64_t>(bytes.size()) <= *budget.max_bytes) {
      EncodedImage out;
      out.bytes = std::move(bytes);
      out.mime_type = "image/" + budget.format;
      out.quality = lossy ? quality : 0;
      out.image = std::move(image);
      return out;
    }
    if (lossy && lowered < std::size(kLowerQualities) && kLowerQualities[lowered] < quality) {
      quality = kLowerQualities[lowered++];
      continue;
    }
    if (++shrink > 8 || image.width <= 16 || image.height <= 16) {
      throw_failed("The screenshot does not fit in " + std::to_string(*budget.max_bytes) +
                   " bytes even at " + std::to_string(image.width) + "x" +
                   std::to_string(image.height) + "; allow more bytes or ask for a smaller region.");
    }
    image = scale_to(image, image.width * 3 / 4, image.height * 3 / 4);
  }
}

}  // namespace vc::desktop_agent
