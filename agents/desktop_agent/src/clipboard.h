// clipboard.h — CLIPBOARD and PRIMARY: owning them (serving other applications' requests for
// as long as the agent lives or until another client takes over) and reading them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <X11/Xlib.h>

#include "protocol.h"
#include "x_connection.h"

namespace vc::desktop_agent {

class Clipboard {
 public:
  explicit Clipboard(XConnection& x);
  json read_action(const Request& request);
  json write_action(const Request& request);

 private:
  struct Owned {
    bool owned = false;
    Time since = CurrentTime;
    std::string text;
  };
  // An INCR transfer to one requestor: the next chunk goes when it deletes the property.
  struct Outgoing {
    Window requestor = None;
    Atom property = None;
    Atom type = None;
    std::string data;
    std::size_t offset = 0;
    std::int64_t last_activity_ms = 0;
  };

  void ensure_window();
  Atom selection_atom(const std::string& name);
  Owned* owned_for(Atom selection);
  Time server_time();
  void on_event(XEvent& event);
  void serve(const XSelectionRequestEvent& request);
  bool answer_target(const XSelectionRequestEvent& request, Atom target, Atom property,
                     const Owned& owned);
  void continue_outgoing(Window requestor, Atom property);
  // Converts the selection into `target` on our window; false when refused. Throws timeout.
  bool convert(Atom selection, Atom target, std::int64_t deadline_ms, std::string& data,
               Atom& type);

  XConnection& x_;
  std::uint64_t generation_ = 0;
  Window window_ = None;
  Owned clipboard_;
  Owned primary_;
  std::map<std::pair<Window, Atom>, Outgoing> outgoing_;
  // Set by the event handler while read/write wait.
  bool notify_seen_ = false;
  Atom notify_property_ = None;
  bool property_seen_ = false;
  Time property_time_ = CurrentTime;
  bool new_value_seen_ = false;
};

}  // namespace vc::desktop_agent
