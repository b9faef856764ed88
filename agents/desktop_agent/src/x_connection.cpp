// x_connection.cpp — lazy connection, error trapping, and the event pump every wait goes
// through (so clipboard requests are served while an action waits).
#include "x_connection.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>

#include "agent_error.h"
#include "vc_agent_common/clock.h"
#include "vc_agent_common/log_line.h"

namespace vc::desktop_agent {

using agent_common::log_line;
using agent_common::monotonic_ms;

namespace {

XConnection* g_connection = nullptr;

// What the open ErrorTrap collects: the first error at or after its first request.
struct TrapState {
  bool active = false;
  unsigned long first_serial = 0;
  int error_code = 0;
};
TrapState g_trap;

int on_x_error(Display* display, XErrorEvent* event) {
  if (g_trap.active && event->serial >= g_trap.first_serial) {
    if (g_trap.error_code == 0) g_trap.error_code = event->error_code;
    return 0;
  }
  char text[160] = {0};
  XGetErrorText(display, event->error_code, text, sizeof text - 1);
  log_line(std::string("X error (unexpected): ") + text + ", request " +
           std::to_string(event->request_code) + "." + std::to_string(event->minor_code));
  return 0;
}

// Xlib calls this, then the exit handler; neither may end the agent.
int on_x_io_error(Display*) {
  if (g_connection != nullptr) g_connection->mark_dead();
  return 0;
}

void on_x_io_error_exit(Display*, void*) {
  if (g_connection != nullptr) g_connection->mark_dead();
}

const char* kUnavailable =
    "The screen (X display) cannot be reached now; the desktop may be starting or restarting.";

}  // namespace

XConnection::XConnection() {
  g_connection = this;
  XSetErrorHandler(on_x_error);
  XSetIOErrorHandler(on_x_io_error);
  const char* name = getenv("DISPLAY");
  display_name_ = (name != nullptr && *name != '\0') ? name : ":99";
}

XConnection::~XConnection() {
  close();
  g_connection = nullptr;
}

void XConnection::mark_dead() {
  if (!dead_) log_line("the X server went away; reconnecting on the next request");
  dead_ = true;
}

Display* XConnection::display() {
  close_if_dead();
  if (display_ == nullptr) open();
  return display_;
}

void XConnection::open() {
  Display* display = XOpenDisplay(display_name_.c_str());
  if (display == nullptr) throw_unavailable(kUnavailable);
  XSetIOErrorExitHandler(display, on_x_io_error_exit, nullptr);
  fcntl(ConnectionNumber(display), F_SETFD, FD_CLOEXEC);
  display_ = display;
  dead_ = false;
  ++generation_;
  atoms_.clear();
  root_ = DefaultRootWindow(display);
  width_ = DisplayWidth(display, DefaultScreen(display));
  height_ = DisplayHeight(display, DefaultScreen(display));
  // Root events: the size (StructureNotify), the window manager's lists and the active
  // window (PropertyChange), and client messages sent to the root, such as ping replies
  // (SubstructureNotify).
  XSelectInput(display, root_, StructureNotifyMask | SubstructureNotifyMask | PropertyChangeMask);
  XFlush(display);
  log_line("connected to X display " + display_name_ + " (" + std::to_string(width_) + "x" +
           std::to_string(height_) + ")");
}

void XConnection::close() {
  if (display_ == nullptr) return;
  // After an I/O error Xlib only frees its memory and the socket; it sends nothing.
  XCloseDisplay(display_);
  display_ = nullptr;
  dead_ = false;
  atoms_.clear();
}

void XConnection::close_if_dead() {
  if (display_ != nullptr && dead_) close();
}

int XConnection::fd() const { return connected() ? ConnectionNumber(display_) : -1; }

void XConnection::check_alive() const {
  if (display_ == nullptr || dead_) throw_unavailable(kUnavailable);
}

Atom XConnection::atom(const char* name) {
  auto it = atoms_.find(name);
  if (it != atoms_.end()) return it->second;
  Atom value = XInternAtom(display(), name, False);
  check_alive();
  atoms_.emplace(name, value);
  return value;
}

std::string XConnection::atom_name(Atom atom) {
  if (atom == None) return std::string();
  for (const auto& [name, value] : atoms_) {
    if (value == atom) return name;
  }
  ErrorTrap trap(*this);
  char* name = XGetAtomName(display(), atom);
  if (name == nullptr) return std::string();
  std::string text(name);
  XFree(name);
  atoms_.emplace(text, atom);
  return text;
}

void XConnection::add_event_handler(EventHandler handler) {
  handlers_.push_back(std::move(handler));
}

void XConnection::handle_own_event(XEvent& event) {
  if (event.type == ConfigureNotify && event.xconfigure.window == root_) {
    width_ = event.xconfigure.width;
    height_ = event.xconfigure.height;
  }
}

void XConnection::dispatch_pending() {
  if (!connected()) return;
  while (!dead_ && XPending(display_) > 0) {
    XEvent event;
    XNextEvent(display_, &event);
    if (dead_) break;
    handle_own_event(event);
    for (auto& handler : handlers_) handler(event);
  }
}

bool XConnection::wait_until(std::int64_t deadline_ms, const std::function<bool()>& done,
                             int extra_fd) {
  for (;;) {
    dispatch_pending();
    check_alive();
    if (done()) return true;
    const std::int64_t left = deadline_ms - monotonic_ms();
    if (left <= 0) return false;
    XFlush(display_);
    pollfd fds[2] = {{ConnectionNumber(display_), POLLIN, 0}, {extra_fd, POLLIN, 0}};
    const int count = poll(fds, extra_fd >= 0 ? 2 : 1, static_cast<int>(left));
    if (count < 0 && errno != EINTR) throw_failed("Waiting for the X server failed.");
    if (extra_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      dispatch_pending();
      return false;
    }
  }
}

void XConnection::pump_for(int ms) {
  if (ms <= 0) {
    dispatch_pending();
    return;
  }
  wait_until(monotonic_ms() + ms, [] { return false; });
}

void XConnection::sync() {
  XSync(display(), False);
  check_alive();
}

void XConnection::flush() {
  XFlush(display());
  check_alive();
}

XConnection::ErrorTrap::ErrorTrap(XConnection& x)
    : x_(x),
      previous_active_(g_trap.active),
      previous_serial_(g_trap.first_serial),
      previous_error_(g_trap.error_code) {
  g_trap.active = true;
  g_trap.first_serial = x_.display_ != nullptr ? NextRequest(x_.display_) : 0;
  g_trap.error_code = 0;
}

int XConnection::ErrorTrap::error() {
  if (x_.connected()) XSync(x_.display_, False);
  return g_trap.error_code;
}

XConnection::ErrorTrap::~ErrorTrap() {
  if (x_.connected()) XSync(x_.display_, False);
  g_trap.active = previous_active_;
  g_trap.first_serial = previous_serial_;
  g_trap.error_code = previous_error_;
}

void XConnection::pointer_position(int& x, int& y) {
  Window root_return = 0;
  Window child = 0;
  int win_x = 0;
  int win_y = 0;
  unsigned int mask = 0;
  x = 0;
  y = 0;
  XQueryPointer(display(), root_, &root_return, &child, &x, &y, &win_x, &win_y, &mask);
  check_alive();
}

std::string XConnection::screen_text() const {
  return std::to_string(width_) + "x" + std::to_string(height_);
}

void XConnection::require_on_screen(std::int64_t x, std::int64_t y) {
  display();
  if (x < 0 || y < 0 || x >= width_ || y >= height_) {
    throw_invalid("Coordinate (" + std::to_string(x) + ", " + std::to_string(y) +
                  ") is outside the " + screen_text() + " screen.");
  }
}

}  // namespace vc::desktop_agent
