// accessibility_tree.cpp — the original server's snapshot, node for node: the same limits
// (600 elements, depth 12, 200 children a node, 80 applications), inclusion rule, refs (child
// index paths from the desktop) and text lines.
//
// The tree is fetched level by level, every question about a level's objects in flight at
// once (atspi_calls.h), then walked depth-first as the original walked it. Only what the walk
// can show is fetched: nothing below its depth limit, nothing under an element that is not
// showing. Interfaces are
// remembered per object between snapshots: an object's interfaces never change.
#include "accessibility_tree.h"

#include <atspi/atspi.h>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "vc_agent_common/clock.h"

namespace vc::desktop_agent {

using agent_common::epoch_seconds;
using agent_common::monotonic_ms;

namespace {

constexpr std::size_t kMaxElements = 600;
constexpr int kMaxDepth = 12;
constexpr std::size_t kMaxChildren = 200;
constexpr std::size_t kMaxApplications = 80;
// Beyond these the snapshot is cut (truncated) rather than keep the agent waiting.
constexpr std::size_t kMaxFetched = 6000;
constexpr std::int64_t kFetchBudgetMs = 10000;
// A hung application costs this once, then nothing more is asked of it.
constexpr int kCallTimeoutMs = 1500;

constexpr const char* kAccessible = "org.a11y.atspi.Accessible";
constexpr const char* kComponent = "org.a11y.atspi.Component";
constexpr const char* kAction = "org.a11y.atspi.Action";
constexpr const char* kProperties = "org.freedesktop.DBus.Properties";
constexpr const char* kRegistry = "org.a11y.atspi.Registry";
constexpr const char* kRootPath = "/org/a11y/atspi/accessible/root";
const char* kNoBus = "The accessibility bus is not available (the desktop is starting, or off).";

enum Interfaces : unsigned { kHasAction = 1, kHasComponent = 2, kKnown = 4 };
enum CallKind {
  kRole, kName, kState, kInterfaces, kChildren, kChildCount, kChildAt, kActionCount, kActionName,
  kExtents
};

const std::set<std::string>& meaningful_roles() {
  static const std::set<std::string> roles = {
      "application", "frame",         "dialog",        "alert",        "terminal",
      "push button", "toggle button", "check box",     "radio button", "combo box",
      "entry",       "text",          "password text", "menu",         "menu item",
      "page tab",    "list",          "list item",     "table",        "table cell",
      "tree",        "tree item",     "link",          "icon",         "label"};
  return roles;
}

const std::string& role_name(std::uint32_t role) {
  static std::unordered_map<std::uint32_t, std::string> names;
  auto it = names.find(role);
  if (it != names.end()) return it->second;
  std::string name = "unknown";
  if (role < ATSPI_ROLE_COUNT) {
    if (gchar* text = atspi_role_get_name(static_cast<AtspiRole>(role))) {
      name = text;
      g_free(text);
    }
  }
  return names.emplace(role, name).first->second;
}

bool has_state(const std::uint32_t states[2], AtspiStateType state) {
  const unsigned bit = static_cast<unsigned>(state);
  return (states[bit / 32] >> (bit % 32)) & 1u;
}

std::string strip(const std::string& text) {
  const char* blanks = " \t\n\r\f\v";
  const std::size_t first = text.find_first_not_of(blanks);
  if (first == std::string::npos) return std::string();
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

// One line per element: a name with line breaks would break the text format.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

// What never changes for an object: its interfaces and its role.
struct Remembered {
  unsigned interfaces = 0;
  std::string role;
};

std::unordered_map<std::string, Remembered>& object_memory() {
  static std::unordered_map<std::string, Remembered> memory;
  return memory;
}

void remember(const AtspiRef& ref, unsigned interfaces, const std::string& role) {
  auto& memory = object_memory();
  if (memory.size() > 200000) memory.clear();
  memory[ref.bus + ref.path] = Remembered{interfaces, role};
}

struct Node {
  AtspiRef ref;
  int depth = 0;
  std::vector<int> path;
  bool ok = true;  // false once a question about it failed: it and its subtree are left out
  std::string role;
  std::string name;
  std::uint32_t states[2] = {0, 0};
  unsigned interfaces = 0;
  std::vector<AtspiRef> child_refs;
  bool children_asked = false;
  int child_count = 0;
  std::vector<std::size_t> children;
  int action_count = 0;
  bool actions_failed = false;
  std::vector<std::string> actions;
  bool has_bounds = false;
  int bounds[4] = {0, 0, 0, 0};

  bool showing() const { return has_state(states, ATSPI_STATE_SHOWING); }
  bool focused() const { return has_state(states, ATSPI_STATE_FOCUSED); }
  bool visible() const { return depth <= 1 || showing() || focused(); }
  bool decided() const {
    return depth <= 1 || meaningful_roles().count(role) != 0 || !name.empty() || focused();
  }
};

std::string ref_text(const std::vector<int>& path) {
  std::string ref = "atspi:";
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i > 0) ref += "/";
    ref += std::to_string(path[i]);
  }
  return ref;
}

class Snapshot {
 public:
  Snapshot(AtspiBus& bus, int width, int height) : bus_(bus), width_(width), height_(height) {}

  json take() {
    fetch();
    for (std::size_t app : applications_) {
      if (elements_.size() >= kMaxElements) {
        truncated_ = true;
        break;
      }
      walk(app, json(nullptr));
    }
    std::string text;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (i > 0) text += "\n";
      text += lines_[i];
    }
    json out;
    out["format"] = "at-spi-snapshot-v1";
    out["generated_at"] = epoch_seconds();
    out["width"] = width_;
    out["height"] = height_;
    out["truncated"] = truncated_;
    out["snapshot"] = std::move(text);
    out["elements"] = std::move(elements_);
    return out;
  }

 private:
  AtspiCall question(std::size_t node, int kind, const char* interface, const char* method) {
    AtspiCall call;
    call.message = AtspiBus::method(nodes_[node].ref, interface, method);
    call.node = node;
    call.kind = kind;
    return call;
  }

  AtspiCall property(std::size_t node, int kind, const char* interface, const char* name) {
    AtspiCall call = question(node, kind, kProperties, "Get");
    dbus_message_append_args(call.message, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &name,
                             DBUS_TYPE_INVALID);
    return call;
  }

  bool stuck(const Node& node) const { return hung_.count(node.ref.bus) != 0; }

  // The questions that decide a node: role, name, states, interfaces, children.
  void ask_basics(std::size_t index, std::vector<AtspiCall>& calls) {
    Node& node = nodes_[index];
    if (stuck(node)) {
      node.ok = false;
      return;
    }
    calls.push_back(property(index, kName, kAccessible, "Name"));
    calls.push_back(question(index, kState, kAccessible, "GetState"));
    auto known = object_memory().find(node.ref.bus + node.ref.path);
    if (known != object_memory().end()) {
      node.interfaces = known->second.interfaces;
      node.role = known->second.role;
    } else {
      calls.push_back(question(index, kRole, kAccessible, "GetRole"));
      calls.push_back(question(index, kInterfaces, kAccessible, "GetInterfaces"));
    }
    if (node.depth < kMaxDepth) {
      calls.push_back(question(index, kChildren, kAccessible, "GetChildren"));
      node.children_asked = true;
    }
  }

  // GetChildren leaves out what a socket embeds (a panel plugin is another process); the
  // child count and GetChildAtIndex include it, as in the original's walk. Only a node that
  // GetChildren called childless can be such a socket.
  void complete_children(const std::vector<std::size_t>& level) {
    std::vector<AtspiCall> counts;
    for (std::size_t index : level) {
      Node& node = nodes_[index];
      if (node.ok && !stuck(node) && node.children_asked && node.child_refs.empty() &&
          worth_descending(node)) {
        counts.push_back(property(index, kChildCount, kAccessible, "ChildCount"));
      }
    }
    if (!counts.empty()) {
      bus_.run(counts, kCallTimeoutMs);
      for (AtspiCall& call : counts) absorb(call);
      release(counts);
    }
    std::vector<AtspiCall> calls;
    for (std::size_t index : level) {
      Node& node = nodes_[index];
      if (!node.ok || stuck(node) || !worth_descending(node)) continue;
      const int wanted = std::min<int>(node.child_count, static_cast<int>(kMaxChildren));
      if (wanted <= static_cast<int>(node.child_refs.size())) continue;
      node.child_refs.assign(static_cast<std::size_t>(wanted), AtspiRef{});
      for (int i = 0; i < wanted; ++i) {
        AtspiCall call = question(index, kChildAt, kAccessible, "GetChildAtIndex");
        dbus_int32_t value = i;
        dbus_message_append_args(call.message, DBUS_TYPE_INT32, &value, DBUS_TYPE_INVALID);
        call.item = i;
        calls.push_back(std::move(call));
      }
    }
    if (calls.empty()) return;
    bus_.run(calls, kCallTimeoutMs);
    for (AtspiCall& call : calls) absorb(call);
    release(calls);
  }

  // Actions where they decide inclusion or will be shown, bounds where the node may be kept.
  void ask_details(std::size_t index, std::vector<AtspiCall>& calls) {
    Node& node = nodes_[index];
    if (!node.ok || stuck(node) || !node.visible()) return;
    if (node.interfaces & kHasAction) calls.push_back(property(index, kActionCount, kAction, "NActions"));
    if ((node.interfaces & kHasComponent) && (node.decided() || (node.interfaces & kHasAction))) {
      AtspiCall call = question(index, kExtents, kComponent, "GetExtents");
      dbus_uint32_t screen = ATSPI_COORD_TYPE_SCREEN;
      dbus_message_append_args(call.message, DBUS_TYPE_UINT32, &screen, DBUS_TYPE_INVALID);
      calls.push_back(std::move(call));
    }
  }

  // GetName, not GetActions: the latter answers localized names, the original showed these.
  void ask_action_names(std::size_t index, std::vector<AtspiCall>& calls) {
    Node& node = nodes_[index];
    if (!node.ok || stuck(node) || node.actions_failed) return;
    node.actions.assign(static_cast<std::size_t>(std::max(0, node.action_count)), std::string());
    for (int i = 0; i < node.action_count; ++i) {
      AtspiCall call = question(index, kActionName, kAction, "GetName");
      dbus_int32_t value = i;
      dbus_message_append_args(call.message, DBUS_TYPE_INT32, &value, DBUS_TYPE_INVALID);
      call.item = i;
      calls.push_back(std::move(call));
    }
  }

  void absorb(AtspiCall& call) {
    Node& node = nodes_[call.node];
    if (call.reply == nullptr) {
      if (is_timeout_error(call.error)) hung_.insert(node.ref.bus);
      // Failed basics drop the node as the original's exception did; failed details only
      // leave out what they would have added.
      if (call.kind <= kInterfaces) node.ok = false;
      if (call.kind == kActionCount || call.kind == kActionName) node.actions_failed = true;
      return;
    }
    switch (call.kind) {
      case kRole: {
        std::uint32_t role = 0;
        if (read_uint32(call.reply, role)) {
          node.role = role_name(role);
          if (node.interfaces & kKnown) remember(node.ref, node.interfaces, node.role);
        } else {
          node.ok = false;
        }
        break;
      }
      case kName: {
        std::string name;
        if (read_string_variant(call.reply, name)) node.name = strip(name);
        else node.ok = false;
        break;
      }
      case kState:
        if (!read_state_set(call.reply, node.states)) node.ok = false;
        break;
      case kInterfaces: {
        std::vector<std::string> names;
        if (!read_strings(call.reply, names)) {
          node.ok = false;
          break;
        }
        unsigned flags = kKnown;
        for (const std::string& name : names) {
          if (name == kAction) flags |= kHasAction;
          if (name == kComponent) flags |= kHasComponent;
        }
        node.interfaces = flags;
        if (!node.role.empty()) remember(node.ref, node.interfaces, node.role);
        break;
      }
      case kChildren:
        read_refs(call.reply, node.child_refs);
        break;
      case kChildCount: {
        std::int32_t count = 0;
        if (read_int32_variant(call.reply, count)) node.child_count = count;
        break;
      }
      case kChildAt: {
        AtspiRef child;
        if (read_ref(call.reply, child) && call.item < static_cast<int>(node.child_refs.size())) {
          node.child_refs[static_cast<std::size_t>(call.item)] = child;
        }
        break;
      }
      case kActionCount: {
        std::int32_t count = 0;
        if (read_int32_variant(call.reply, count)) node.action_count = std::min(count, 64);
        else node.actions_failed = true;
        break;
      }
      case kActionName: {
        std::string name;
        if (read_string(call.reply, name) && call.item < static_cast<int>(node.actions.size())) {
          node.actions[static_cast<std::size_t>(call.item)] = name;
        } else {
          node.actions_failed = true;
        }
        break;
      }
      case kExtents:
        node.has_bounds = read_rect(call.reply, node.bounds);
        break;
      default:
        break;
    }
  }

  void fetch() {
    const std::int64_t deadline = monotonic_ms() + kFetchBudgetMs;
    std::string error;
    DBusMessage* reply = bus_.call(
        AtspiBus::method(AtspiRef{kRegistry, kRootPath}, kAccessible, "GetChildren"),
        kCallTimeoutMs, &error);
    std::vector<AtspiRef> apps;
    const bool listed = read_refs(reply, apps);
    if (reply != nullptr) dbus_message_unref(reply);
    if (!listed) {
      if (!bus_.connected()) throw_unavailable(kNoBus);
      throw_unavailable("The accessibility registry did not answer (" + error + ").");
    }
    std::vector<std::size_t> level;
    for (std::size_t i = 0; i < apps.size() && i < kMaxApplications; ++i) {
      Node node;
      node.ref = apps[i];
      node.path = {static_cast<int>(i)};
      nodes_.push_back(std::move(node));
      applications_.push_back(nodes_.size() - 1);
      level.push_back(nodes_.size() - 1);
    }
    // Three stages in each round: the basics of one level, the details of the level above,
    // the action names of the level above that.
    std::vector<std::size_t> previous;
    std::vector<std::size_t> earlier;
    while (!level.empty() || !previous.empty() || !earlier.empty()) {
      std::vector<AtspiCall> calls;
      for (std::size_t index : earlier) ask_action_names(index, calls);
      for (std::size_t index : previous) ask_details(index, calls);
      for (std::size_t index : level) ask_basics(index, calls);
      bus_.run(calls, kCallTimeoutMs);
      for (AtspiCall& call : calls) absorb(call);
      release(calls);
      for (std::size_t index : earlier) {
        if (nodes_[index].actions_failed) nodes_[index].actions.clear();
      }
      complete_children(level);
      std::vector<std::size_t> next;
      for (std::size_t index : level) {
        if (!nodes_[index].ok) continue;
        if (!worth_descending(nodes_[index])) {
          nodes_[index].child_refs.clear();
          continue;
        }
        const std::size_t count = std::min(nodes_[index].child_refs.size(), kMaxChildren);
        for (std::size_t c = 0; c < count; ++c) {
          const AtspiRef& child_ref = nodes_[index].child_refs[c];
          // A child that could not be had is skipped, as the original's walk skipped it.
          if (child_ref.bus.empty() || child_ref.path == "/org/a11y/atspi/null") continue;
          if (nodes_.size() >= kMaxFetched || monotonic_ms() > deadline) {
            truncated_ = true;
            break;
          }
          Node child;
          child.ref = nodes_[index].child_refs[c];
          child.depth = nodes_[index].depth + 1;
          child.path = nodes_[index].path;
          child.path.push_back(static_cast<int>(c));
          nodes_.push_back(std::move(child));
          nodes_[index].children.push_back(nodes_.size() - 1);
          next.push_back(nodes_.size() - 1);
        }
        nodes_[index].child_refs.clear();
      }
      earlier = std::move(previous);
      previous = std::move(level);
      level = std::move(next);
    }
  }

  // Whether a node's children can show up in the snapshot, so are worth asking about: the
  // walk stops at kMaxDepth, and what is under an element that is not showing (a closed menu's
  // items, a hidden notebook page, a minimised window's widgets) is not showing either, so the
  // walk would leave it out. Applications have no showing state and are always descended into.
  static bool worth_descending(const Node& node) {
    if (node.depth >= kMaxDepth) return false;
    return node.depth == 0 || node.showing() || node.focused();
  }

  void walk(std::size_t index, const json& parent_ref) {
    if (elements_.size() >= kMaxElements) {
      truncated_ = true;
      return;
    }
    const Node& node = nodes_[index];
    if (!node.ok) return;
    const bool include = node.visible() && (node.decided() || !node.actions.empty());
    json current_parent = parent_ref;
    if (include) {
      const std::string ref = ref_text(node.path);
      const int* b = node.bounds;
      // Left out when empty or entirely off the screen.
      const bool shown_bounds = node.has_bounds && b[2] > 0 && b[3] > 0 && b[0] + b[2] > 0 &&
                                b[1] + b[3] > 0 && b[0] < width_ && b[1] < height_;
      json item;
      item["ref"] = ref;
      item["parent_ref"] = parent_ref;
      item["role"] = node.role.empty() ? "unknown" : node.role;
      item["name"] = node.name;
      item["focused"] = node.focused();
      item["focusable"] = has_state(node.states, ATSPI_STATE_FOCUSABLE);
      item["enabled"] = has_state(node.states, ATSPI_STATE_ENABLED);
      if (shown_bounds) {
        item["bounds"] = json{{"x", b[0]}, {"y", b[1]}, {"width", b[2]}, {"height", b[3]}};
      }
      if (!node.actions.empty()) item["actions"] = node.actions;
      elements_.push_back(std::move(item));
      current_parent = ref;

      std::string line(static_cast<std::size_t>(2 * std::min(node.depth, kMaxDepth)), ' ');
      line += "- " + (node.role.empty() ? std::string("unknown") : node.role);
      if (!node.name.empty()) line += " \"" + one_line(node.name) + "\"";
      line += " [ref=" + ref;
      if (shown_bounds) {
        line += " bounds=" + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," +
                std::to_string(b[2]) + "," + std::to_string(b[3]);
      }
      if (node.focused()) line += " focused";
      if (!node.actions.empty()) {
        line += " actions=";
        for (std::size_t i = 0; i < node.actions.size(); ++i) {
          if (i > 0) line += ",";
          line += node.actions[i];
        }
      }
      line += "]";
      lines_.push_back(std::move(line));
    }
    if (node.depth >= kMaxDepth) return;
    for (std::size_t child : node.children) {
      if (elements_.size() >= kMaxElements) {
        truncated_ = true;
        return;
      }
      walk(child, current_parent);
    }
  }

  AtspiBus& bus_;
  int width_;
  int height_;
  std::vector<Node> nodes_;
  std::vector<std::size_t> applications_;
  std::set<std::string> hung_;
  bool truncated_ = false;
  json elements_ = json::array();
  std::vector<std::string> lines_;
};

}  // namespace

json accessibility_snapshot(AtspiBus& bus, int width, int height) {
  return Snapshot(bus, width, height).take();
}

namespace {

// The object a ref names: the same child indexes the snapshot used, GetChildAtIndex from the
// registry's root. `invalid_argument` for a malformed ref, `not_found` when a step is gone.
AtspiRef resolve_ref(AtspiBus& bus, const std::string& ref, bool& empty_path) {
  const std::string prefix = "atspi:";
  if (ref.compare(0, prefix.size(), prefix) != 0) {
    throw_invalid("Element references must start with 'atspi:'.");
  }
  std::vector<int> path;
  const std::string rest = ref.substr(prefix.size());
  std::size_t start = 0;
  while (start < rest.size()) {
    std::size_t end = rest.find('/', start);
    if (end == std::string::npos) end = rest.size();
    const std::string part = rest.substr(start, end - start);
    if (!part.empty()) {
      if (part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) {
        throw_invalid("Element reference '" + ref + "' is not of the form atspi:0/1/2.");
      }
      path.push_back(std::stoi(part));
    }
    start = end + 1;
  }
  const std::string gone = "Accessibility element '" + ref + "' is no longer available.";
  AtspiRef node{kRegistry, kRootPath};
  for (int index : path) {
    DBusMessage* message = AtspiBus::method(node, kAccessible, "GetChildAtIndex");
    dbus_int32_t value = index;
    dbus_message_append_args(message, DBUS_TYPE_INT32, &value, DBUS_TYPE_INVALID);
    std::string error;
    DBusMessage* reply = bus.call(message, kCallTimeoutMs, &error);
    AtspiRef child;
    const bool found = read_ref(reply, child);
    if (reply != nullptr) dbus_message_unref(reply);
    if (!found) {
      if (!bus.connected()) throw_unavailable(kNoBus);
      throw_not_found(gone);
    }
    // A missing child is answered with the null reference.
    if (child.path == "/org/a11y/atspi/null" || child.bus.empty()) throw_not_found(gone);
    node = child;
  }
  empty_path = path.empty();
  return node;
}

std::string element_role(AtspiBus& bus, const AtspiRef& node) {
  DBusMessage* reply = bus.call(AtspiBus::method(node, kAccessible, "GetRole"), kCallTimeoutMs);
  std::uint32_t role = 0;
  const bool has = read_uint32(reply, role);
  if (reply != nullptr) dbus_message_unref(reply);
  return has ? role_name(role) : std::string();
}

std::string element_name(AtspiBus& bus, const AtspiRef& node) {
  DBusMessage* message = AtspiBus::method(node, kProperties, "Get");
  const char* interface = kAccessible;
  const char* name = "Name";
  dbus_message_append_args(message, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &name,
                           DBUS_TYPE_INVALID);
  DBusMessage* reply = bus.call(message, kCallTimeoutMs);
  std::string out;
  read_string_variant(reply, out);
  if (reply != nullptr) dbus_message_unref(reply);
  return out;
}

// A method answering a boolean: the answer, or nullopt with `error` (the D-Bus error name).
std::optional<bool> call_boolean(AtspiBus& bus, DBusMessage* message, std::string& error) {
  DBusMessage* reply = bus.call(message, kCallTimeoutMs, &error);
  if (reply == nullptr) return std::nullopt;
  dbus_bool_t value = FALSE;
  const bool read = dbus_message_get_args(reply, nullptr, DBUS_TYPE_BOOLEAN, &value,
                                          DBUS_TYPE_INVALID) != 0;
  dbus_message_unref(reply);
  if (!read) return std::nullopt;
  return value != FALSE;
}

}  // namespace

json element_action(AtspiBus& bus, const json& request) {
  const std::string ref = request.value("ref", std::string());
  const std::string operation = request.value("operation", std::string());
  bool empty_path = false;
  const AtspiRef node = resolve_ref(bus, ref, empty_path);
  if (empty_path) throw_invalid("'" + ref + "' is the desktop itself, not an element.");
  const std::string role = element_role(bus, node);
  const std::string name = element_name(bus, node);
  const std::string seen = role + " \"" + name + "\"";
  // A ref is a path of child indexes: bound to the snapshot it came from by what it showed.
  if (request.contains("expect_role") || request.contains("expect_name")) {
    const std::string want_role = request.value("expect_role", role);
    const std::string want_name = request.value("expect_name", name);
    if (want_role != role || want_name != name) {
      throw_not_found("Element '" + ref + "' is no longer the " + want_role + " \"" + want_name +
                      "\" of the snapshot it came from (it is now a " + seen +
                      "); look at the screen again.");
    }
  }
  std::string error;
  std::optional<bool> done;
  const char* cannot = "";
  if (operation == "focus") {
    done = call_boolean(bus, AtspiBus::method(node, kComponent, "GrabFocus"), error);
    cannot = "take the focus";
  } else if (operation == "press") {
    DBusMessage* message = AtspiBus::method(node, kAction, "DoAction");
    dbus_int32_t first = 0;
    dbus_message_append_args(message, DBUS_TYPE_INT32, &first, DBUS_TYPE_INVALID);
    done = call_boolean(bus, message, error);
    cannot = "be pressed (it has no action)";
  } else if (operation == "set_text") {
    const std::string text = request.value("text", std::string());
    DBusMessage* message = AtspiBus::method(node, "org.a11y.atspi.EditableText", "SetTextContents");
    const char* value = text.c_str();
    dbus_message_append_args(message, DBUS_TYPE_STRING, &value, DBUS_TYPE_INVALID);
    done = call_boolean(bus, message, error);
    cannot = "take text (it is not editable)";
  } else {
    throw_invalid("'operation' must be focus, press or set_text.");
  }
  if (!done) {
    if (!bus.connected()) throw_unavailable(kNoBus);
    if (error == "org.freedesktop.DBus.Error.UnknownObject" ||
        error == "org.freedesktop.DBus.Error.ServiceUnknown") {
      throw_not_found("Accessibility element '" + ref + "' is no longer available.");
    }
    if (is_timeout_error(error)) {
      throw_timeout("The application of element '" + ref + "' did not answer within 1.5 seconds.");
    }
    throw_invalid("Element '" + ref + "' (" + seen + ") cannot " + cannot + ".");
  }
  if (!*done) {
    throw_failed("The application refused to let element '" + ref + "' (" + seen + ") " +
                 cannot + ".");
  }
  return json{{"ref", ref}, {"operation", operation}, {"role", role}, {"name", name}};
}

json element_bounds(AtspiBus& bus, const std::string& ref, int width, int height) {
  const std::string gone = "Accessibility element '" + ref + "' is no longer available.";
  const std::string no_bounds = "Element '" + ref + "' has no clickable screen bounds.";
  bool empty_path = false;
  const AtspiRef node = resolve_ref(bus, ref, empty_path);
  if (empty_path) throw_not_found(no_bounds);
  DBusMessage* message = AtspiBus::method(node, kComponent, "GetExtents");
  dbus_uint32_t screen = ATSPI_COORD_TYPE_SCREEN;
  dbus_message_append_args(message, DBUS_TYPE_UINT32, &screen, DBUS_TYPE_INVALID);
  std::string error;
  DBusMessage* reply = bus.call(message, kCallTimeoutMs, &error);
  int b[4] = {0, 0, 0, 0};
  const bool has = read_rect(reply, b);
  if (reply != nullptr) dbus_message_unref(reply);
  if (!has) {
    if (error == "org.freedesktop.DBus.Error.UnknownObject" ||
        error == "org.freedesktop.DBus.Error.ServiceUnknown") {
      throw_not_found(gone);
    }
    throw_not_found(no_bounds);
  }
  if (b[2] <= 0 || b[3] <= 0 || b[0] + b[2] <= 0 || b[1] + b[3] <= 0 || b[0] >= width ||
      b[1] >= height) {
    throw_not_found(no_bounds);
  }
  return json{{"ref", ref},
              {"bounds", {{"x", b[0]}, {"y", b[1]}, {"width", b[2]}, {"height", b[3]}}},
              {"center", {b[0] + b[2] / 2, b[1] + b[3] / 2}}};
}

}  // namespace vc::desktop_agent
