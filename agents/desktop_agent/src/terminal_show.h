// terminal_show.h — the visible "MCP Terminal": one xfce4-terminal window whose program
// (`vc-desktop-agent --terminal-view FIFO`) copies what the agent writes into a FIFO to the
// screen. The agent shows each command there as a person would see it; it runs nothing.
#pragma once

#include <string>

#include "protocol.h"
#include "windows.h"
#include "x_connection.h"

namespace vc::desktop_agent {

class TerminalShow {
 public:
  TerminalShow(XConnection& x, Windows& windows);
  ~TerminalShow();
  json action(const Request& request);

 private:
  // The window, opened (again) when there is none or nobody reads the FIFO.
  Window ensure_terminal();
  Window find_window();
  bool open_writer();
  // Writes to the terminal; reopens it once when it was closed. False when it cannot.
  void show(const std::string& text);
  bool write_all(const std::string& text);

  XConnection& x_;
  Windows& windows_;
  std::string folder_;
  std::string fifo_;
  int writer_ = -1;
  std::string header_;  // prompt and command of the running session, shown again on reopen
  bool at_line_start_ = true;
};

// The program inside the terminal window.
int terminal_view_main(const std::string& fifo);

}  // namespace vc::desktop_agent
