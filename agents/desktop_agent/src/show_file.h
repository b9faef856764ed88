// show_file.h — `show_file`: what a file tool did, shown on the desktop as a person would look
// at it (the folder in Thunar for a write, then the file in Mousepad). Display only: the
// agent never writes the file.
#pragma once

#include <string>

#include "damage_wait.h"
#include "keyboard.h"
#include "protocol.h"
#include "windows.h"
#include "x_connection.h"

namespace vc::desktop_agent {

class FileShow {
 public:
  FileShow(XConnection& x, Windows& windows, Keyboard& keyboard, DamageWatch& damage);
  json action(const Request& request);

 private:
  void show_folder(const std::string& folder);
  Window open_in_mousepad(const std::string& path);
  // Windows are marked with what they show, so that another agent (after a reconnect) finds
  // and reuses them as this one would.
  void mark(Window window, const std::string& what);
  Window find_marked(const std::string& what);
  void keys(const std::string& keys);
  void type(const std::string& text);
  // A damage wait; false when it timed out.
  bool screen(const char* until, int stable_ms, int timeout_ms);

  XConnection& x_;
  Windows& windows_;
  Keyboard& keyboard_;
  DamageWatch& damage_;
};

}  // namespace vc::desktop_agent
