// windows.cpp — EWMH reading (as wmctrl -lGx shows it) and client messages to the window
// manager, each waited for on the window's own property and configure events.
#include "windows.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include <X11/Xatom.h>
#include <X11/Xutil.h>

#include "vc_agent_common/clock.h"
#include "x_properties.h"

namespace vc::desktop_agent {

using agent_common::monotonic_ms;

namespace {

constexpr int kActionWaitMs = 1000;
// EWMH source indication: a pager, which window managers obey without focus-stealing checks.
constexpr long kSourcePager = 2;
constexpr long kStateRemove = 0;
constexpr long kStateAdd = 1;

const char* kNoWindowManager = "No window manager is running (the desktop is off).";

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool contains(const std::vector<std::string>& list, const char* value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

std::string window_id_text(Window window) {
  char text[32];
  snprintf(text, sizeof text, "0x%08lx", static_cast<unsigned long>(window));
  return text;
}

Windows::Windows(XConnection& x) : x_(x) {
  x_.add_event_handler([this](XEvent& event) { on_event(event); });
}

void Windows::on_event(XEvent& event) {
  if (watched_ == None) return;
  const Window root = x_.root();
  switch (event.type) {
    case PropertyNotify:
      if (event.xproperty.window == watched_ || event.xproperty.window == root) event_seen_ = true;
      break;
    case ConfigureNotify:
    case MapNotify:
    case UnmapNotify:
    case DestroyNotify:
    case ReparentNotify:
      // The frame is a child of the root: its moves arrive through SubstructureNotify.
      event_seen_ = true;
      break;
    default:
      break;
  }
}

bool Windows::window_manager_running() {
  const Atom check = x_.atom("_NET_SUPPORTING_WM_CHECK");
  auto root_value = read_cardinals(x_, x_.root(), check, XA_WINDOW);
  if (!root_value || root_value->empty()) return false;
  // A window manager that died leaves the root property behind; its window went with it.
  auto own_value = read_cardinals(x_, static_cast<Window>(root_value->front()), check, XA_WINDOW);
  return own_value && !own_value->empty() && own_value->front() == root_value->front();
}

std::vector<Window> Windows::client_list() {
  x_.display();
  if (!window_manager_running()) {
    x_.check_alive();
    throw_unavailable(kNoWindowManager);
  }
  auto list = read_cardinals(x_, x_.root(), x_.atom("_NET_CLIENT_LIST"), XA_WINDOW);
  x_.check_alive();
  std::vector<Window> windows;
  if (list) {
    for (unsigned long value : *list) windows.push_back(static_cast<Window>(value));
  }
  return windows;
}

Window Windows::active_window() {
  auto value = read_cardinals(x_, x_.root(), x_.atom("_NET_ACTIVE_WINDOW"), XA_WINDOW);
  return value && !value->empty() ? static_cast<Window>(value->front()) : None;
}

std::vector<std::string> Windows::states(Window window) {
  std::vector<std::string> out;
  auto list = read_cardinals(x_, window, x_.atom("_NET_WM_STATE"), XA_ATOM);
  if (!list) return out;
  static const std::string kPrefix = "_NET_WM_STATE_";
  for (unsigned long value : *list) {
    std::string name = x_.atom_name(static_cast<Atom>(value));
    if (name.compare(0, kPrefix.size(), kPrefix) == 0) name = name.substr(kPrefix.size());
    if (!name.empty()) out.push_back(lowercase(name));
  }
  return out;
}

// As wmctrl -lG: the client's size, and its origin on the root translated by its offset in
// the frame, which for a reparenting window manager is where the frame's top-left corner is
// shown once _NET_FRAME_EXTENTS is taken off.
bool Windows::frame_geometry(Window window, Rect& rect) {
  XConnection::ErrorTrap trap(x_);
  Window root = None;
  int x = 0, y = 0;
  unsigned int width = 0, height = 0, border = 0, depth = 0;
  if (XGetGeometry(x_.display(), window, &root, &x, &y, &width, &height, &border, &depth) == 0) {
    return false;
  }
  int root_x = 0, root_y = 0;
  Window child = None;
  if (XTranslateCoordinates(x_.display(), window, x_.root(), 0, 0, &root_x, &root_y, &child) ==
      0) {
    return false;
  }
  long left = 0, top = 0;
  if (auto extents = read_cardinals(x_, window, x_.atom("_NET_FRAME_EXTENTS"), XA_CARDINAL)) {
    if (extents->size() >= 4) {
      left = static_cast<long>((*extents)[0]);
      top = static_cast<long>((*extents)[2]);
    }
  }
  if (trap.error() != 0) return false;
  rect.x = root_x - static_cast<int>(left);
  rect.y = root_y - static_cast<int>(top);
  rect.width = static_cast<int>(width);
  rect.height = static_cast<int>(height);
  return true;
}

std::optional<json> Windows::describe(Window window) { return describe(window, active_window()); }

std::optional<json> Windows::describe(Window window, Window active) {
  Rect rect;
  if (!frame_geometry(window, rect)) return std::nullopt;
  json info;
  info["window_id"] = window_id_text(window);
  long desktop = 0;
  if (auto value = read_cardinals(x_, window, x_.atom("_NET_WM_DESKTOP"), XA_CARDINAL)) {
    if (!value->empty()) {
      desktop = value->front() == 0xffffffffUL ? -1 : static_cast<long>(value->front());
    }
  }
  info["desktop"] = desktop;
  info["x"] = rect.x;
  info["y"] = rect.y;
  info["width"] = rect.width;
  info["height"] = rect.height;
  std::string wm_class = "N/A";
  if (auto value = read_bytes(x_, window, XA_WM_CLASS, XA_STRING)) {
    // "instance\0Class\0"
    const std::string& raw = *value;
    const std::size_t split = raw.find('\0');
    if (split != std::string::npos) {
      std::string instance = raw.substr(0, split);
      std::string klass = raw.substr(split + 1);
      if (!klass.empty() && klass.back() == '\0') klass.pop_back();
      wm_class = latin1_as_utf8(instance) + "." + latin1_as_utf8(klass);
    }
  }
  info["wm_class"] = wm_class;
  auto title = read_title(x_, window);
  info["title"] = title ? *title : "N/A";
  info["active"] = window == active;
  info["states"] = states(window);
  auto pid = read_cardinals(x_, window, x_.atom("_NET_WM_PID"), XA_CARDINAL);
  if (pid && !pid->empty()) info["pid"] = pid->front();
  else info["pid"] = nullptr;
  x_.check_alive();
  return info;
}

json Windows::list_action(const Request&) {
  const std::vector<Window> windows = client_list();
  const Window active = active_window();
  json list = json::array();
  for (Window window : windows) {
    if (auto info = describe(window, active)) list.push_back(std::move(*info));
  }
  return json{{"windows", std::move(list)}};
}

void Windows::send_root_message(Window window, const char* type, long l0, long l1, long l2,
                                long l3, long l4) {
  XEvent event{};
  event.xclient.type = ClientMessage;
  event.xclient.window = window;
  event.xclient.message_type = x_.atom(type);
  event.xclient.format = 32;
  event.xclient.data.l[0] = l0;
  event.xclient.data.l[1] = l1;
  event.xclient.data.l[2] = l2;
  event.xclient.data.l[3] = l3;
  event.xclient.data.l[4] = l4;
  XSendEvent(x_.display(), x_.root(), False, SubstructureRedirectMask | SubstructureNotifyMask,
             &event);
  x_.flush();
}

void Windows::activate(Window window) {
  // A window on another workspace is shown by switching there first, as wmctrl -a does.
  auto desktop = read_cardinals(x_, window, x_.atom("_NET_WM_DESKTOP"), XA_CARDINAL);
  auto current = read_cardinals(x_, x_.root(), x_.atom("_NET_CURRENT_DESKTOP"), XA_CARDINAL);
  if (desktop && current && !desktop->empty() && !current->empty() &&
      desktop->front() != 0xffffffffUL && desktop->front() != current->front()) {
    send_root_message(x_.root(), "_NET_CURRENT_DESKTOP", static_cast<long>(desktop->front()),
                      CurrentTime, 0, 0, 0);
  }
  send_root_message(window, "_NET_ACTIVE_WINDOW", kSourcePager, CurrentTime, 0, 0, 0);
}

bool Windows::wait_for(Window window, int ms, const std::function<bool()>& done) {
  watched_ = window;
  event_seen_ = true;
  bool result = false;
  try {
    result = x_.wait_until(monotonic_ms() + ms, [&] {
      if (!event_seen_) return false;
      event_seen_ = false;
      return done();
    });
  } catch (...) {
    watched_ = None;
    throw;
  }
  watched_ = None;
  return result;
}

json Windows::action(const Request& request) {
  const std::string& id_text = request.string("window_id");
  // `operation`, since `action` is the request's own field ("window_action").
  const std::string action = request.choice(
      "operation", {"activate", "move", "maximize", "restore", "minimize", "close"});
  unsigned long id = 0;
  char tail = 0;
  if (id_text.size() < 3 || id_text.compare(0, 2, "0x") != 0 ||
      sscanf(id_text.c_str() + 2, "%lx%c", &id, &tail) != 1) {
    throw_invalid("'window_id' must be a window id such as '0x02a00003', as list_windows gives.");
  }
  const Window window = static_cast<Window>(id);

  // Arguments of move are checked before anything is sent.
  std::optional<std::int64_t> move_x, move_y, move_width, move_height;
  if (action == "move") {
    x_.display();
    move_x = request.integer("x", INT32_MIN, INT32_MAX);
    move_y = request.integer("y", INT32_MIN, INT32_MAX);
    x_.require_on_screen(*move_x, *move_y);
    move_width = request.optional_integer("width", 1, 32767);
    move_height = request.optional_integer("height", 1, 32767);
  }

  const std::vector<Window> clients = client_list();
  if (std::find(clients.begin(), clients.end(), window) == clients.end()) {
    throw_not_found("Window '" + id_text + "' was not found.");
  }
  {
    XConnection::ErrorTrap trap(x_);
    XSelectInput(x_.display(), window, PropertyChangeMask | StructureNotifyMask);
  }

  auto still_listed = [&] {
    auto list = read_cardinals(x_, x_.root(), x_.atom("_NET_CLIENT_LIST"), XA_WINDOW);
    return list && std::find(list->begin(), list->end(), window) != list->end();
  };
  auto has_states = [&](std::initializer_list<const char*> wanted, bool present) {
    const std::vector<std::string> now = states(window);
    for (const char* state : wanted) {
      if (contains(now, state) != present) return false;
    }
    return true;
  };
  // Adds or removes both maximized states, then waits for the window manager to show it.
  auto set_maximized = [&](bool maximized) {
    send_root_message(window, "_NET_WM_STATE", maximized ? kStateAdd : kStateRemove,
                      static_cast<long>(x_.atom("_NET_WM_STATE_MAXIMIZED_VERT")),
                      static_cast<long>(x_.atom("_NET_WM_STATE_MAXIMIZED_HORZ")), kSourcePager,
                      0);
    wait_for(window, kActionWaitMs,
             [&] { return has_states({"maximized_vert", "maximized_horz"}, maximized); });
  };

  if (action == "activate") {
    activate(window);
    wait_for(window, kActionWaitMs, [&] { return active_window() == window; });
  } else if (action == "move") {
    // A maximized window does not move: it is restored to its normal size first.
    const std::vector<std::string> now = states(window);
    if (contains(now, "maximized_vert") || contains(now, "maximized_horz")) set_maximized(false);
    Rect current;
    frame_geometry(window, current);
    const long width = move_width ? static_cast<long>(*move_width) : current.width;
    const long height = move_height ? static_cast<long>(*move_height) : current.height;
    // NorthWest gravity, x/y/width/height given, from a pager.
    const long flags = 1 | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (kSourcePager << 12);
    send_root_message(window, "_NET_MOVERESIZE_WINDOW", flags, static_cast<long>(*move_x),
                      static_cast<long>(*move_y), width, height);
    wait_for(window, kActionWaitMs, [&] {
      Rect now_rect;
      if (!frame_geometry(window, now_rect)) return true;
      return now_rect.x == *move_x && now_rect.y == *move_y && now_rect.width == width &&
             now_rect.height == height;
    });
  } else if (action == "maximize") {
    set_maximized(true);
  } else if (action == "restore") {
    set_maximized(false);
    activate(window);
    wait_for(window, kActionWaitMs,
             [&] { return active_window() == window && has_states({"hidden"}, false); });
  } else if (action == "minimize") {
    send_root_message(window, "WM_CHANGE_STATE", IconicState, 0, 0, 0, 0);
    wait_for(window, kActionWaitMs, [&] { return has_states({"hidden"}, true); });
  } else {
    send_root_message(window, "_NET_CLOSE_WINDOW", CurrentTime, kSourcePager, 0, 0, 0);
    wait_for(window, kActionWaitMs, [&] { return !still_listed(); });
  }

  {
    XConnection::ErrorTrap trap(x_);
    XSelectInput(x_.display(), window, NoEventMask);
  }
  json result;
  if (still_listed()) {
    auto info = describe(window);
    result["window"] = info ? *info : json(nullptr);
  } else {
    result["window"] = nullptr;
  }
  return result;
}

}  // namespace vc::desktop_agent
