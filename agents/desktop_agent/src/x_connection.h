// x_connection.h — the agent's one X connection: opened lazily, dropped when the server goes
// away (the supervisor restarts Xvfb) and opened again on the next request that needs it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <X11/Xlib.h>

namespace vc::desktop_agent {

struct Rect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

class XConnection {
 public:
  using EventHandler = std::function<void(XEvent&)>;

  XConnection();
  ~XConnection();
  XConnection(const XConnection&) = delete;
  XConnection& operator=(const XConnection&) = delete;

  // The display, opened if need be; `unavailable` when the server cannot be reached.
  Display* display();
  bool connected() const { return display_ != nullptr && !dead_; }
  // Counts connections: state tied to one connection (windows, keycodes) is made again when
  // this changes.
  std::uint64_t generation() const { return generation_; }
  int fd() const;
  Window root() const { return root_; }
  int width() const { return width_; }
  int height() const { return height_; }
  const std::string& display_name() const { return display_name_; }

  Atom atom(const char* name);
  std::string atom_name(Atom atom);

  // Handlers see every event; they are kept across reconnections.
  void add_event_handler(EventHandler handler);
  // Reads what the server sent and hands each event to the handlers.
  void dispatch_pending();
  // Serves events until `done()` holds or the deadline (monotonic ms) passes; true when done.
  // With extra_fd >= 0 it also returns (false) as soon as that descriptor is readable.
  bool wait_until(std::int64_t deadline_ms, const std::function<bool()>& done,
                  int extra_fd = -1);
  // Serves events for `ms` milliseconds: the agent's pause between input events.
  void pump_for(int ms);
  // A round trip: the server has handled every request sent before.
  void sync();
  void flush();
  // Throws `unavailable` if the server went away during the last calls.
  void check_alive() const;
  // Drops a connection whose server went away; the next display() opens a new one.
  void close_if_dead();

  // Catches the X errors of the requests made while it lives (Xlib reports them
  // asynchronously: the destructor or error() syncs first).
  class ErrorTrap {
   public:
    explicit ErrorTrap(XConnection& x);
    ~ErrorTrap();
    ErrorTrap(const ErrorTrap&) = delete;
    ErrorTrap& operator=(const ErrorTrap&) = delete;
    // The first error code seen (0 for none), after a sync.
    int error();

   private:
    XConnection& x_;
    bool previous_active_;
    unsigned long previous_serial_;
    int previous_error_;
  };

  // Pointer position in screen coordinates.
  void pointer_position(int& x, int& y);
  bool inside_screen(int x, int y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }
  // "Coordinate (x, y) is outside the WxH screen." as `invalid_argument` unless inside.
  void require_on_screen(std::int64_t x, std::int64_t y);
  std::string screen_text() const;

  // Called by the Xlib hooks.
  void mark_dead();

 private:
  void open();
  void close();
  void handle_own_event(XEvent& event);

  Display* display_ = nullptr;
  bool dead_ = false;
  std::uint64_t generation_ = 0;
  Window root_ = 0;
  int width_ = 0;
  int height_ = 0;
  std::string display_name_;
  std::unordered_map<std::string, Atom> atoms_;
  std::vector<EventHandler> handlers_;
};

}  // namespace vc::desktop_agent
