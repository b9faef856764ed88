// clipboard.cpp — ICCCM selections: ownership with a real timestamp, TARGETS, UTF8_STRING,
// STRING (Latin-1) and TEXT answers, INCR both ways for text larger than one request.
#include "clipboard.h"

#include <X11/Xatom.h>

#include "vc_agent_common/clock.h"
#include "x_properties.h"

namespace vc::desktop_agent {

using agent_common::monotonic_ms;

namespace {

constexpr int kReadTimeoutMs = 2000;
constexpr std::size_t kIncrChunk = 256 * 1024;
constexpr std::int64_t kOutgoingIdleMs = 10000;

// Characters outside Latin-1 become '?': STRING cannot carry them.
std::string utf8_to_latin1(const std::string& utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (std::size_t i = 0; i < utf8.size();) {
    const unsigned char c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    int length = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
    if ((c & 0xE0) == 0xC0 && i + 1 < utf8.size()) {
      const unsigned value = ((c & 0x1F) << 6) | (static_cast<unsigned char>(utf8[i + 1]) & 0x3F);
      out.push_back(value <= 0xFF ? static_cast<char>(value) : '?');
    } else {
      out.push_back('?');
    }
    i += static_cast<std::size_t>(length);
  }
  return out;
}

bool valid_utf8(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;
    if (c < 0x80) extra = 0;
    else if ((c & 0xE0) == 0xC0) extra = 1;
    else if ((c & 0xF0) == 0xE0) extra = 2;
    else if ((c & 0xF8) == 0xF0) extra = 3;
    else return false;
    if (i + extra >= text.size() && extra > 0) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

// The largest property one request may carry, less room for the request header.
std::size_t max_property_bytes(Display* display) {
  long words = XExtendedMaxRequestSize(display);
  if (words == 0) words = XMaxRequestSize(display);
  return static_cast<std::size_t>(words) * 4 - 1024;
}

}  // namespace

Clipboard::Clipboard(XConnection& x) : x_(x) {
  x_.add_event_handler([this](XEvent& event) { on_event(event); });
}

void Clipboard::ensure_window() {
  Display* display = x_.display();
  if (generation_ == x_.generation() && window_ != None) return;
  clipboard_ = Owned{};
  primary_ = Owned{};
  outgoing_.clear();
  XSetWindowAttributes attributes{};
  attributes.override_redirect = True;
  attributes.event_mask = PropertyChangeMask;
  window_ = XCreateWindow(display, x_.root(), -10, -10, 1, 1, 0, CopyFromParent, InputOnly,
                          CopyFromParent, CWOverrideRedirect | CWEventMask, &attributes);
  XStoreName(display, window_, "vc-desktop-agent clipboard");
  generation_ = x_.generation();
  x_.sync();
}

Atom Clipboard::selection_atom(const std::string& name) {
  return name == "primary" ? XA_PRIMARY : x_.atom("CLIPBOARD");
}

Clipboard::Owned* Clipboard::owned_for(Atom selection) {
  if (selection == XA_PRIMARY) return &primary_;
  if (selection == x_.atom("CLIPBOARD")) return &clipboard_;
  return nullptr;
}

// ICCCM wants a real timestamp for ownership: a zero-length append to our own window makes
// the server send one.
Time Clipboard::server_time() {
  property_seen_ = false;
  const Atom stamp = x_.atom("_VC_AGENT_TIMESTAMP");
  XChangeProperty(x_.display(), window_, stamp, XA_STRING, 8, PropModeAppend, nullptr, 0);
  const bool seen = x_.wait_until(monotonic_ms() + 250, [this] { return property_seen_; });
  return seen ? property_time_ : CurrentTime;
}

void Clipboard::on_event(XEvent& event) {
  if (window_ == None || generation_ != x_.generation()) return;
  switch (event.type) {
    case SelectionRequest:
      if (event.xselectionrequest.owner == window_) serve(event.xselectionrequest);
      break;
    case SelectionClear:
      if (event.xselectionclear.window == window_) {
        Owned* owned = owned_for(event.xselectionclear.selection);
        if (owned != nullptr) *owned = Owned{};
      }
      break;
    case SelectionNotify:
      if (event.xselection.requestor == window_) {
        notify_seen_ = true;
        notify_property_ = event.xselection.property;
      }
      break;
    case PropertyNotify:
      if (event.xproperty.window == window_) {
        if (event.xproperty.atom == x_.atom("_VC_AGENT_TIMESTAMP")) {
          property_seen_ = true;
          property_time_ = event.xproperty.time;
        } else if (event.xproperty.state == PropertyNewValue) {
          new_value_seen_ = true;
        }
      } else if (event.xproperty.state == PropertyDelete) {
        continue_outgoing(event.xproperty.window, event.xproperty.atom);
      }
      break;
    default:
      break;
  }
}

void Clipboard::serve(const XSelectionRequestEvent& request) {
  XSelectionEvent reply{};
  reply.type = SelectionNotify;
  reply.display = request.display;
  reply.requestor = request.requestor;
  reply.selection = request.selection;
  reply.target = request.target;
  reply.time = request.time;
  reply.property = None;
  const Owned* owned = owned_for(request.selection);
  // Obsolete clients send no property: the target's name is used instead.
  const Atom property = request.property != None ? request.property : request.target;
  if (owned != nullptr && owned->owned &&
      (request.time == CurrentTime || owned->since == CurrentTime ||
       request.time >= owned->since)) {
    XConnection::ErrorTrap trap(x_);
    if (answer_target(request, request.target, property, *owned)) reply.property = property;
  }
  XConnection::ErrorTrap trap(x_);
  XSendEvent(x_.display(), request.requestor, False, NoEventMask,
             reinterpret_cast<XEvent*>(&reply));
}

bool Clipboard::answer_target(const XSelectionRequestEvent& request, Atom target, Atom property,
                              const Owned& owned) {
  Display* display = x_.display();
  const Atom utf8 = x_.atom("UTF8_STRING");
  const Atom targets = x_.atom("TARGETS");
  const Atom text_atom = x_.atom("TEXT");
  const Atom timestamp = x_.atom("TIMESTAMP");
  const Atom mime_utf8 = x_.atom("text/plain;charset=utf-8");
  const Atom mime_plain = x_.atom("text/plain");
  if (target == targets) {
    const Atom list[] = {targets, timestamp, utf8, XA_STRING, text_atom, mime_utf8, mime_plain};
    XChangeProperty(display, request.requestor, property, XA_ATOM, 32, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(list), sizeof list / sizeof list[0]);
    return true;
  }
  if (target == timestamp) {
    const long value = static_cast<long>(owned.since);
    XChangeProperty(display, request.requestor, property, XA_INTEGER, 32, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(&value), 1);
    return true;
  }
  std::string data;
  Atom type = None;
  if (target == utf8 || target == text_atom || target == mime_utf8) {
    data = owned.text;
    type = target == mime_utf8 ? mime_utf8 : utf8;
  } else if (target == XA_STRING || target == mime_plain) {
    data = utf8_to_latin1(owned.text);
    type = target == mime_plain ? mime_plain : XA_STRING;
  } else {
    return false;
  }
  if (data.size() <= max_property_bytes(display)) {
    XChangeProperty(display, request.requestor, property, type, 8, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(data.data()),
                    static_cast<int>(data.size()));
    return true;
  }
  // INCR: announce the size, then one chunk each time the requestor deletes the property.
  Outgoing transfer;
  transfer.requestor = request.requestor;
  transfer.property = property;
  transfer.type = type;
  transfer.data = std::move(data);
  transfer.last_activity_ms = monotonic_ms();
  const long size = static_cast<long>(transfer.data.size());
  XSelectInput(display, request.requestor, PropertyChangeMask);
  XChangeProperty(display, request.requestor, property, x_.atom("INCR"), 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(&size), 1);
  outgoing_[{request.requestor, property}] = std::move(transfer);
  return true;
}

void Clipboard::continue_outgoing(Window requestor, Atom property) {
  const std::int64_t now = monotonic_ms();
  for (auto it = outgoing_.begin(); it != outgoing_.end();) {
    if (now - it->second.last_activity_ms > kOutgoingIdleMs) it = outgoing_.erase(it);
    else ++it;
  }
  auto it = outgoing_.find({requestor, property});
  if (it == outgoing_.end()) return;
  Outgoing& transfer = it->second;
  const std::size_t left = transfer.data.size() - transfer.offset;
  const std::size_t chunk = std::min(left, kIncrChunk);
  XConnection::ErrorTrap trap(x_);
  XChangeProperty(x_.display(), requestor, property, transfer.type, 8, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(transfer.data.data() + transfer.offset),
                  static_cast<int>(chunk));
  transfer.offset += chunk;
  transfer.last_activity_ms = now;
  if (chunk == 0) {
    // The zero-length chunk just written ends the transfer.
    XSelectInput(x_.display(), requestor, NoEventMask);
    outgoing_.erase(it);
  }
}

json Clipboard::write_action(const Request& request) {
  const std::string& text = request.string("text");
  const std::string selection_name =
      request.choice("selection", {"clipboard", "primary"}, "clipboard");
  ensure_window();
  const Atom selection = selection_atom(selection_name);
  const Time time = server_time();
  XSetSelectionOwner(x_.display(), selection, window_, time);
  const Window owner = XGetSelectionOwner(x_.display(), selection);
  x_.check_alive();
  if (owner != window_) throw_failed("The agent could not take the " + selection_name + ".");
  Owned* owned = owned_for(selection);
  owned->owned = true;
  owned->since = time;
  owned->text = text;
  return json{{"characters", count_code_points(text)}};
}

bool Clipboard::convert(Atom selection, Atom target, std::int64_t deadline_ms, std::string& data,
                        Atom& type) {
  Display* display = x_.display();
  const Atom property = x_.atom("_VC_AGENT_SELECTION");
  XDeleteProperty(display, window_, property);
  notify_seen_ = false;
  XConvertSelection(display, selection, target, property, window_, CurrentTime);
  if (!x_.wait_until(deadline_ms, [this] { return notify_seen_; })) {
    throw_timeout("The application that owns the clipboard did not answer within 2 seconds.");
  }
  if (notify_property_ == None) return false;

  auto read_property = [&](std::string& out, Atom& out_type) {
    out.clear();
    long offset = 0;
    for (;;) {
      Atom actual = None;
      int format = 0;
      unsigned long items = 0, after = 0;
      unsigned char* bytes = nullptr;
      if (XGetWindowProperty(display, window_, property, offset, 1 << 20, False,
                             AnyPropertyType, &actual, &format, &items, &after,
                             &bytes) != Success) {
        x_.check_alive();
        return false;
      }
      out_type = actual;
      const std::size_t unit = format == 32 ? sizeof(long) : static_cast<std::size_t>(format / 8);
      if (bytes != nullptr) {
        out.append(reinterpret_cast<const char*>(bytes), items * unit);
        XFree(bytes);
      }
      offset += static_cast<long>(format == 32 ? items : items * unit / 4);
      if (after == 0) break;
    }
    new_value_seen_ = false;
    XDeleteProperty(display, window_, property);
    return true;
  };

  std::string chunk;
  Atom chunk_type = None;
  if (!read_property(chunk, chunk_type)) return false;
  if (chunk_type != x_.atom("INCR")) {
    data = std::move(chunk);
    type = chunk_type;
    return true;
  }
  // INCR: the owner writes chunks; deleting each asks for the next; an empty one ends it.
  data.clear();
  type = None;
  for (;;) {
    const bool arrived =
        x_.wait_until(monotonic_ms() + kReadTimeoutMs, [this] { return new_value_seen_; });
    if (!arrived) throw_timeout("The application that owns the clipboard stopped sending it.");
    if (!read_property(chunk, chunk_type)) return false;
    if (chunk.empty()) return true;
    type = chunk_type;
    data += chunk;
  }
}

json Clipboard::read_action(const Request& request) {
  const std::string selection_name =
      request.choice("selection", {"clipboard", "primary"}, "clipboard");
  ensure_window();
  const Atom selection = selection_atom(selection_name);
  const Window owner = XGetSelectionOwner(x_.display(), selection);
  x_.check_alive();
  if (owner == None) return json{{"text", ""}};
  const Owned* owned = owned_for(selection);
  if (owner == window_ && owned != nullptr && owned->owned) return json{{"text", owned->text}};

  const std::int64_t deadline = monotonic_ms() + kReadTimeoutMs;
  std::string data;
  Atom type = None;
  if (convert(selection, x_.atom("UTF8_STRING"), deadline, data, type)) {
    if (type == XA_STRING) data = latin1_as_utf8(data);
    else if (!valid_utf8(data)) data = latin1_as_utf8(data);
    return json{{"text", data}};
  }
  if (convert(selection, XA_STRING, deadline, data, type)) {
    return json{{"text", latin1_as_utf8(data)}};
  }
  return json{{"text", ""}};
}

}  // namespace vc::desktop_agent
