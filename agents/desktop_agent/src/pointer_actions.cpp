// pointer_actions.cpp — moves, clicks, drags and wheel turns. Every action ends with a round
// trip, so the reply means the server has handled the input.
#include <cmath>
#include <cstdlib>

#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

#include "input_actions.h"

namespace vc::desktop_agent {
namespace {

constexpr int kClickGapMs = 120;
constexpr int kDragStepPixels = 20;
constexpr int kDragStepMs = 8;
constexpr int kScrollGapMs = 45;

unsigned int button_number(const std::string& name) {
  if (name == "left") return 1;
  if (name == "middle") return 2;
  return 3;
}

std::string button_field(const Request& request) {
  return request.choice("button", {"left", "middle", "right"});
}

void move_to(XConnection& x, int px, int py) {
  XTestFakeMotionEvent(x.display(), DefaultScreen(x.display()), px, py, CurrentTime);
}

void press_button(XConnection& x, unsigned int button, bool down) {
  XTestFakeButtonEvent(x.display(), button, down ? True : False, CurrentTime);
}

// The `modifiers` array as keycodes, checked before anything is pressed.
std::vector<KeyCode> modifier_codes(Keyboard& keyboard, const Request& request) {
  std::vector<KeyCode> codes;
  if (!request.has("modifiers")) return codes;
  const json& list = request.array("modifiers");
  for (const json& item : list) {
    const std::string name = item.is_string() ? item.get<std::string>() : std::string();
    KeySym sym = NoSymbol;
    if (name == "ctrl" || name == "control") sym = XK_Control_L;
    else if (name == "shift") sym = XK_Shift_L;
    else if (name == "alt") sym = XK_Alt_L;
    else if (name == "super" || name == "win") sym = XK_Super_L;
    if (sym == NoSymbol) {
      throw_invalid("Unknown modifier '" + (item.is_string() ? name : item.dump()) +
                    "'; use ctrl, shift, alt or super.");
    }
    codes.push_back(keyboard.modifier_code(sym));
  }
  return codes;
}

// Holds modifiers for one scope; releases them in reverse order even when an action fails.
class HeldModifiers {
 public:
  HeldModifiers(XConnection& x, Keyboard& keyboard, std::vector<KeyCode> codes)
      : x_(x), keyboard_(keyboard), codes_(std::move(codes)) {
    for (KeyCode code : codes_) keyboard_.key(code, true);
  }
  ~HeldModifiers() {
    if (!x_.connected()) return;
    for (auto it = codes_.rbegin(); it != codes_.rend(); ++it) keyboard_.key(*it, false);
    XFlush(x_.display());
  }
  HeldModifiers(const HeldModifiers&) = delete;
  HeldModifiers& operator=(const HeldModifiers&) = delete;

 private:
  XConnection& x_;
  Keyboard& keyboard_;
  std::vector<KeyCode> codes_;
};

struct Point {
  int x;
  int y;
};

Point point_fields(XConnection& x, const Request& request) {
  const std::int64_t px = request.integer("x", INT32_MIN, INT32_MAX);
  const std::int64_t py = request.integer("y", INT32_MIN, INT32_MAX);
  x.require_on_screen(px, py);
  return Point{static_cast<int>(px), static_cast<int>(py)};
}

// x and y together or not at all.
bool optional_point(XConnection& x, const Request& request, Point& point) {
  const bool has_x = request.has("x");
  const bool has_y = request.has("y");
  if (!has_x && !has_y) return false;
  if (has_x != has_y) throw_invalid("Give both 'x' and 'y', or neither.");
  point = point_fields(x, request);
  return true;
}

}  // namespace

json cursor_position_action(XConnection& x, const Request&) {
  int px = 0, py = 0;
  x.pointer_position(px, py);
  return json{{"x", px}, {"y", py}};
}

json pointer_move_action(XConnection& x, const Request& request) {
  const Point point = point_fields(x, request);
  move_to(x, point.x, point.y);
  x.sync();
  return json{{"x", point.x}, {"y", point.y}};
}

json click_action(XConnection& x, Keyboard& keyboard, const Request& request) {
  // Without x and y: where the pointer is.
  Point point{0, 0};
  const bool move = optional_point(x, request, point);
  if (!move) x.pointer_position(point.x, point.y);
  const std::string button = button_field(request);
  const int clicks = static_cast<int>(request.integer("clicks", 1, 3));
  std::vector<KeyCode> modifiers = modifier_codes(keyboard, request);
  if (move) move_to(x, point.x, point.y);
  {
    HeldModifiers held(x, keyboard, std::move(modifiers));
    for (int i = 0; i < clicks; ++i) {
      if (i > 0) x.pump_for(kClickGapMs);
      press_button(x, button_number(button), true);
      press_button(x, button_number(button), false);
      x.flush();
    }
  }
  x.sync();
  keyboard.finish();
  return json{{"x", point.x}, {"y", point.y}, {"button", button}, {"clicks", clicks}};
}

json pause_action(XConnection& x, const Request& request) {
  const int ms = static_cast<int>(request.integer("ms", 0, 60000));
  // The agent keeps serving the X events it owes (the clipboard it holds) while it waits.
  x.pump_for(ms);
  return json{{"paused_ms", ms}};
}

json mouse_button_action(XConnection& x, const Request& request) {
  const std::string button = button_field(request);
  const std::string direction = request.choice("direction", {"down", "up"});
  Point point{0, 0};
  if (optional_point(x, request, point)) {
    move_to(x, point.x, point.y);
  } else {
    x.pointer_position(point.x, point.y);
  }
  press_button(x, button_number(button), direction == "down");
  x.sync();
  return json{{"button", button}, {"direction", direction}, {"x", point.x}, {"y", point.y}};
}

json drag_action(XConnection& x, Keyboard& keyboard, const Request& request) {
  const json& path = request.array("path");
  if (path.size() < 2 || path.size() > 100) {
    throw_invalid("'path' must hold 2 to 100 points [x, y].");
  }
  std::vector<Point> points;
  for (const json& item : path) {
    if (!item.is_array() || item.size() != 2 || !item[0].is_number_integer() ||
        !item[1].is_number_integer()) {
      throw_invalid("Each point of 'path' must be [x, y] with integer coordinates.");
    }
    const std::int64_t px = item[0].get<std::int64_t>();
    const std::int64_t py = item[1].get<std::int64_t>();
    x.require_on_screen(px, py);
    points.push_back(Point{static_cast<int>(px), static_cast<int>(py)});
  }
  const std::string button = button_field(request);
  std::vector<KeyCode> modifiers = modifier_codes(keyboard, request);
  const unsigned int number = button_number(button);
  {
    HeldModifiers held(x, keyboard, std::move(modifiers));
    move_to(x, points[0].x, points[0].y);
    press_button(x, number, true);
    x.flush();
    x.pump_for(kDragStepMs);
    for (std::size_t i = 1; i < points.size(); ++i) {
      const Point from = points[i - 1];
      const Point to = points[i];
      const double distance = std::hypot(to.x - from.x, to.y - from.y);
      const int steps = std::max(1, static_cast<int>(std::ceil(distance / kDragStepPixels)));
      for (int s = 1; s <= steps; ++s) {
        const int px = from.x + static_cast<int>(std::lround((to.x - from.x) * double(s) / steps));
        const int py = from.y + static_cast<int>(std::lround((to.y - from.y) * double(s) / steps));
        move_to(x, px, py);
        x.flush();
        x.pump_for(kDragStepMs);
      }
    }
    press_button(x, number, false);
    x.flush();
  }
  x.sync();
  keyboard.finish();
  return json{{"from", {points.front().x, points.front().y}},
              {"to", {points.back().x, points.back().y}},
              {"button", button}};
}

json scroll_action(XConnection& x, Keyboard& keyboard, const Request& request) {
  const std::string direction = request.choice("direction", {"up", "down", "left", "right"});
  const int amount = static_cast<int>(request.integer("amount", 1, 50));
  Point point{0, 0};
  const bool move = optional_point(x, request, point);
  std::vector<KeyCode> modifiers = modifier_codes(keyboard, request);
  const unsigned int wheel = direction == "up" ? 4 : direction == "down" ? 5
                             : direction == "left" ? 6 : 7;
  if (move) move_to(x, point.x, point.y);
  {
    HeldModifiers held(x, keyboard, std::move(modifiers));
    for (int i = 0; i < amount; ++i) {
      if (i > 0) x.pump_for(kScrollGapMs);
      press_button(x, wheel, true);
      press_button(x, wheel, false);
      x.flush();
    }
  }
  x.sync();
  keyboard.finish();
  return json{{"direction", direction}, {"amount", amount}};
}

}  // namespace vc::desktop_agent
