// desktop_screen_snapshot.cpp — see desktop_screen_snapshot.h.
#include "tools/desktop_screen_snapshot.h"

#include <cctype>
#include <cmath>
#include <string>

namespace vc::tools {
namespace {

int64_t scaled(int64_t value, double scale) {
  return static_cast<int64_t>(std::llround(static_cast<double>(value) * scale));
}

void scale_integer(Json& object, const char* key, double scale) {
  auto it = object.find(key);
  if (it != object.end() && it->is_number_integer()) *it = scaled(it->get<int64_t>(), scale);
}

// Rewrites each "bounds=x,y,w,h" of the snapshot's text.
std::string scale_text(const std::string& text, double scale) {
  static const std::string kMarker = "bounds=";
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    const size_t found = text.find(kMarker, at);
    if (found == std::string::npos) {
      out.append(text, at, std::string::npos);
      break;
    }
    out.append(text, at, found + kMarker.size() - at);
    size_t cursor = found + kMarker.size();
    for (int field = 0; field < 4; ++field) {
      size_t end = cursor;
      if (end < text.size() && text[end] == '-') ++end;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      const std::string digits = text.substr(cursor, end - cursor);
      if (digits.empty() || digits == "-") break;
      out += std::to_string(scaled(std::stoll(digits), scale));
      cursor = end;
      if (field < 3 && cursor < text.size() && text[cursor] == ',') {
        out += ',';
        ++cursor;
      } else {
        break;
      }
    }
    at = cursor;
  }
  return out;
}

}  // namespace

Json scale_snapshot(Json snapshot, double scale) {
  if (scale == 1.0 || !snapshot.is_object()) return snapshot;
  scale_integer(snapshot, "width", scale);
  scale_integer(snapshot, "height", scale);
  snapshot["scale"] = scale;
  auto elements = snapshot.find("elements");
  if (elements != snapshot.end() && elements->is_array()) {
    for (Json& element : *elements) {
      auto bounds = element.is_object() ? element.find("bounds") : element.end();
      if (!element.is_object() || bounds == element.end() || !bounds->is_object()) continue;
      for (const char* key : {"x", "y", "width", "height"}) scale_integer(*bounds, key, scale);
    }
  }
  auto text = snapshot.find("snapshot");
  if (text != snapshot.end() && text->is_string()) *text = scale_text(text->get<std::string>(), scale);
  return snapshot;
}

}  // namespace vc::tools
