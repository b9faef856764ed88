// screen_space.cpp — see screen_space.h.
#include "tools/screen_space.h"

#include <algorithm>
#include <cmath>

#include <vc-backend-1/vc_status.h>

namespace vc::tools {
namespace {

int64_t scaled(int64_t value, double factor) {
  return static_cast<int64_t>(std::llround(static_cast<double>(value) * factor));
}

}  // namespace

void ScreenSpace::remember(int64_t screen_width, int64_t screen_height, double scale) {
  if (screen_width <= 0 || screen_height <= 0 || !(scale > 0.0) || scale > 1.0) return;
  screen_width_ = screen_width;
  screen_height_ = screen_height;
  scale_ = scale;
}

Expected<ScreenPoint> ScreenSpace::to_screen(int64_t x, int64_t y) const {
  if (!known()) {
    // Nothing is known of the screen yet: the agent checks the point against the real screen.
    if (x < 0 || y < 0) {
      return Failure{VC_E_INVALID_ARGUMENT, "Coordinate (" + std::to_string(x) + ", " +
                                                std::to_string(y) + ") is outside the screen."};
    }
    return ScreenPoint{x, y};
  }
  const int64_t space_width = std::max<int64_t>(1, scaled(screen_width_, scale_));
  const int64_t space_height = std::max<int64_t>(1, scaled(screen_height_, scale_));
  if (x < 0 || y < 0 || x >= space_width || y >= space_height) {
    std::string where = "Coordinate (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the ";
    if (scale_ == 1.0) {
      where += std::to_string(screen_width_) + "x" + std::to_string(screen_height_) + " screen.";
    } else {
      where += std::to_string(space_width) + "x" + std::to_string(space_height) +
               " screenshot (the screen is " + std::to_string(screen_width_) + "x" +
               std::to_string(screen_height_) + "; coordinates are read at the last "
               "screenshot's scale).";
    }
    return Failure{VC_E_INVALID_ARGUMENT, where};
  }
  return ScreenPoint{std::min(screen_width_ - 1, scaled(x, 1.0 / scale_)),
                     std::min(screen_height_ - 1, scaled(y, 1.0 / scale_))};
}

void ScreenSpace::remember_elements(const Json& snapshot) {
  elements_.clear();
  const Json& elements = snapshot.is_object() ? snapshot.value("elements", Json::array()) : Json();
  if (!elements.is_array()) return;
  for (const Json& element : elements) {
    if (!element.is_object() || !element.contains("ref") || !element["ref"].is_string()) continue;
    elements_[element["ref"].get<std::string>()] =
        SeenElement{element.value("role", ""), element.value("name", "")};
  }
}

std::optional<ScreenSpace::SeenElement> ScreenSpace::element(const std::string& ref) const {
  auto found = elements_.find(ref);
  if (found == elements_.end()) return std::nullopt;
  return found->second;
}

Json ScreenSpace::describe() const {
  if (!known()) return Json();
  return Json{{"width", std::max<int64_t>(1, scaled(screen_width_, scale_))},
              {"height", std::max<int64_t>(1, scaled(screen_height_, scale_))},
              {"scale", scale_}};
}

ScreenPoint ScreenSpace::from_screen(int64_t x, int64_t y) const {
  return ScreenPoint{scaled(x, scale_), scaled(y, scale_)};
}

int64_t ScreenSpace::length_to_screen(int64_t length) const {
  return std::max<int64_t>(1, scaled(length, 1.0 / scale_));
}

}  // namespace vc::tools
