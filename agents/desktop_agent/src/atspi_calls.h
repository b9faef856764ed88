// atspi_calls.h — AT-SPI method calls on the accessibility bus, many in flight at once.
//
// libatspi's getters each wait for their answer before the next question, so a walk of a few
// hundred objects costs a few hundred round trips to busy applications. These calls speak the
// same D-Bus interfaces (org.a11y.atspi.*) but are sent in batches and collected afterwards:
// an application answers them back to back. As libatspi does, each application is asked over
// its own peer-to-peer connection when it offers one, which keeps the bus daemon (otherwise
// the busiest process of a snapshot) out of the way.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <dbus/dbus.h>

namespace vc::desktop_agent {

// An accessible object: the application's bus name and the object's path.
struct AtspiRef {
  std::string bus;
  std::string path;
};

struct AtspiCall {
  DBusMessage* message = nullptr;   // owned until sent
  DBusPendingCall* pending = nullptr;
  DBusMessage* reply = nullptr;     // owned; nullptr when the call failed
  std::string error;                // D-Bus error name of a failed call
  std::size_t node = 0;             // what the caller wants to know the answer for
  int kind = 0;
  int item = 0;
};

class AtspiBus {
 public:
  AtspiBus() = default;
  ~AtspiBus();
  AtspiBus(const AtspiBus&) = delete;
  AtspiBus& operator=(const AtspiBus&) = delete;

  // Connects to the accessibility bus at `address`; false (with `error`) when it cannot.
  bool open(const std::string& address, std::string& error);
  bool connected() const;

  // A method call on `ref` with no arguments (append more with dbus_message_append_args).
  static DBusMessage* method(const AtspiRef& ref, const char* interface, const char* name);
  // Sends every call (a bounded number in flight) and waits for all their answers.
  void run(std::vector<AtspiCall>& calls, int timeout_ms);
  // One call, waited for; nullptr on failure.
  DBusMessage* call(DBusMessage* message, int timeout_ms, std::string* error = nullptr);

 private:
  // The connection that reaches `bus`: the application's own when it has one.
  DBusConnection* route(const std::string& bus);
  void drop_direct(const std::string& bus);

  DBusConnection* connection_ = nullptr;
  std::map<std::string, DBusConnection*> direct_;
  std::set<std::string> no_direct_;
};

void release(std::vector<AtspiCall>& calls);

// Reply readers; false when the reply has another shape.
bool read_uint32(DBusMessage* reply, std::uint32_t& out);
bool read_string_variant(DBusMessage* reply, std::string& out);
bool read_int32_variant(DBusMessage* reply, std::int32_t& out);
bool read_string(DBusMessage* reply, std::string& out);
bool read_state_set(DBusMessage* reply, std::uint32_t out[2]);
bool read_strings(DBusMessage* reply, std::vector<std::string>& out);
bool read_refs(DBusMessage* reply, std::vector<AtspiRef>& out);
bool read_ref(DBusMessage* reply, AtspiRef& out);
bool read_rect(DBusMessage* reply, int out[4]);

bool is_timeout_error(const std::string& name);

}  // namespace vc::desktop_agent
