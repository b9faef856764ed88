// screen_space.h — the coordinates the model points with.
//
// look_at_screen may scale its image down (max_edge); the model then reads positions off the
// smaller image. Every pointer tool takes its x and y in the space of the last screenshot and
// turns them into screen pixels here, so a click lands where the model pointed; results give
// positions back in the same space. Until a scaled screenshot was taken the space is the
// screen itself. One space per session (DesktopToolSet::screen_space): a second client
// taking a smaller screenshot does not move the first one's clicks.
//
// [loop-thread].
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "common/failure.h"
#include "common/json.h"

namespace vc::tools {

struct ScreenPoint {
  int64_t x = 0;
  int64_t y = 0;
};

class ScreenSpace {
 public:
  // Records the space of a screenshot: the screen's size and the image's scale (image width
  // divided by screen width; 1 for a full-size screenshot).
  void remember(int64_t screen_width, int64_t screen_height, double scale);

  double scale() const { return scale_; }
  bool known() const { return screen_width_ > 0; }
  // The max_edge the screenshot that set the space asked for (nullopt: full size), so that a
  // later observation is taken in the same space.
  void remember_max_edge(std::optional<int64_t> max_edge) { max_edge_ = max_edge; }
  std::optional<int64_t> max_edge() const { return max_edge_; }
  // The image budget of that screenshot ({format, quality, max_bytes, pointer}, as the agent
  // takes them), so that observations come in the same form.
  void remember_image_budget(Json budget) { image_budget_ = std::move(budget); }
  const Json& image_budget() const { return image_budget_; }

  // What the session's last accessibility look showed at each ref (at most the snapshot's 600
  // elements), so that an action on a ref can refuse another element found there later.
  struct SeenElement {
    std::string role;
    std::string name;
  };
  void remember_elements(const Json& snapshot);
  std::optional<SeenElement> element(const std::string& ref) const;
  // {"width", "height", "scale"}: the space coordinates are read in (the screenshot's size),
  // null until the screen is known.
  Json describe() const;

  // A point of the screenshot space in screen pixels; a point outside the screenshot (or the
  // screen, when no screenshot was taken) is a Failure naming both sizes.
  Expected<ScreenPoint> to_screen(int64_t x, int64_t y) const;
  // A screen point in the screenshot space (for cursor_position and results).
  ScreenPoint from_screen(int64_t x, int64_t y) const;
  // A length of the screenshot space in screen pixels (zoom's region sizes).
  int64_t length_to_screen(int64_t length) const;

 private:
  int64_t screen_width_ = 0;
  int64_t screen_height_ = 0;
  double scale_ = 1.0;
  std::optional<int64_t> max_edge_;
  Json image_budget_ = Json::object();
  std::map<std::string, SeenElement> elements_;
};

}  // namespace vc::tools
