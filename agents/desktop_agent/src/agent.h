// agent.h — everything one agent keeps between requests, and the dispatch of a request.
#pragma once

#include "accessibility_client.h"
#include "clipboard.h"
#include "damage_wait.h"
#include "keyboard.h"
#include "protocol.h"
#include "show_file.h"
#include "terminal_show.h"
#include "windows.h"
#include "x_connection.h"

namespace vc::desktop_agent {

class Agent {
 public:
  Agent();
  // One request line in, one reply object out; never throws.
  json handle_line(const std::string& line);
  XConnection& x() { return x_; }

 private:
  // An input action with `settle` waits for the screen afterwards (DamageWatch::settle).
  json dispatch(const std::string& action, const Request& request);
  json dispatch_action(const std::string& action, const Request& request);

  XConnection x_;
  Keyboard keyboard_;
  Clipboard clipboard_;
  DamageWatch damage_;
  Windows windows_;
  AccessibilityClient accessibility_;
  TerminalShow terminal_;
  FileShow files_;
};

}  // namespace vc::desktop_agent
