// atspi_calls.cpp — libdbus pending calls with a sliding window, and readers for the reply
// signatures the walk uses.
#include "atspi_calls.h"

namespace vc::desktop_agent {
namespace {

// The accessibility bus allows far more; a window keeps memory and the daemon's queue small.
constexpr std::size_t kInFlight = 128;

}  // namespace

namespace {

void close_connection(DBusConnection* connection) {
  dbus_connection_close(connection);
  dbus_connection_unref(connection);
}

}  // namespace

AtspiBus::~AtspiBus() {
  for (auto& [bus, connection] : direct_) close_connection(connection);
  if (connection_ != nullptr) close_connection(connection_);
}

void AtspiBus::drop_direct(const std::string& bus) {
  auto it = direct_.find(bus);
  if (it == direct_.end()) return;
  close_connection(it->second);
  direct_.erase(it);
}

DBusConnection* AtspiBus::route(const std::string& bus) {
  if (connection_ == nullptr || bus.empty() || bus[0] != ':') return connection_;
  auto it = direct_.find(bus);
  if (it != direct_.end()) {
    if (dbus_connection_get_is_connected(it->second)) return it->second;
    drop_direct(bus);
    no_direct_.insert(bus);
    return connection_;
  }
  if (no_direct_.count(bus) != 0) return connection_;
  // Asked once per application; an empty address means it serves the bus only.
  no_direct_.insert(bus);
  DBusMessage* message =
      dbus_message_new_method_call(bus.c_str(), "/org/a11y/atspi/accessible/root",
                                   "org.a11y.atspi.Application", "GetApplicationBusAddress");
  DBusError failure;
  dbus_error_init(&failure);
  DBusMessage* reply =
      message != nullptr
          ? dbus_connection_send_with_reply_and_block(connection_, message, 1000, &failure)
          : nullptr;
  if (message != nullptr) dbus_message_unref(message);
  dbus_error_free(&failure);
  std::string address;
  read_string(reply, address);
  if (reply != nullptr) dbus_message_unref(reply);
  if (address.empty()) return connection_;
  dbus_error_init(&failure);
  DBusConnection* direct = dbus_connection_open_private(address.c_str(), &failure);
  dbus_error_free(&failure);
  if (direct == nullptr) return connection_;
  dbus_connection_set_exit_on_disconnect(direct, FALSE);
  no_direct_.erase(bus);
  direct_[bus] = direct;
  return direct;
}

bool AtspiBus::open(const std::string& address, std::string& error) {
  DBusError failure;
  dbus_error_init(&failure);
  DBusConnection* connection = dbus_connection_open_private(address.c_str(), &failure);
  if (connection == nullptr) {
    error = failure.message != nullptr ? failure.message : "cannot connect";
    dbus_error_free(&failure);
    return false;
  }
  dbus_connection_set_exit_on_disconnect(connection, FALSE);
  if (!dbus_bus_register(connection, &failure)) {
    error = failure.message != nullptr ? failure.message : "cannot register";
    dbus_error_free(&failure);
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
    return false;
  }
  connection_ = connection;
  return true;
}

bool AtspiBus::connected() const {
  return connection_ != nullptr && dbus_connection_get_is_connected(connection_);
}

DBusMessage* AtspiBus::method(const AtspiRef& ref, const char* interface, const char* name) {
  return dbus_message_new_method_call(ref.bus.c_str(), ref.path.c_str(), interface, name);
}

void AtspiBus::run(std::vector<AtspiCall>& calls, int timeout_ms) {
  std::size_t sent = 0;
  std::set<DBusConnection*> used;
  auto send = [&](AtspiCall& call) {
    if (call.message == nullptr) {
      call.error = "org.freedesktop.DBus.Error.NoMemory";
      return;
    }
    const char* destination = dbus_message_get_destination(call.message);
    DBusConnection* connection = route(destination != nullptr ? destination : "");
    if (connection == nullptr ||
        !dbus_connection_send_with_reply(connection, call.message, &call.pending, timeout_ms) ||
        call.pending == nullptr) {
      call.error = "org.freedesktop.DBus.Error.Disconnected";
    } else {
      used.insert(connection);
    }
    dbus_message_unref(call.message);
    call.message = nullptr;
  };
  for (std::size_t i = 0; i < calls.size(); ++i) {
    while (sent < calls.size() && sent < i + kInFlight) send(calls[sent++]);
    for (DBusConnection* connection : used) dbus_connection_flush(connection);
    AtspiCall& call = calls[i];
    if (call.pending == nullptr) continue;
    dbus_pending_call_block(call.pending);
    DBusMessage* reply = dbus_pending_call_steal_reply(call.pending);
    dbus_pending_call_unref(call.pending);
    call.pending = nullptr;
    if (reply == nullptr) {
      call.error = "org.freedesktop.DBus.Error.NoReply";
    } else if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
      const char* name = dbus_message_get_error_name(reply);
      call.error = name != nullptr ? name : "error";
      dbus_message_unref(reply);
    } else {
      call.reply = reply;
    }
  }
  // Nothing here handles incoming messages: drop what arrived besides the replies.
  used.insert(connection_);
  for (DBusConnection* connection : used) {
    if (connection == nullptr) continue;
    while (dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS) {
    }
  }
  // An application that went away is reached through the bus again (and fails there).
  for (auto it = direct_.begin(); it != direct_.end();) {
    if (!dbus_connection_get_is_connected(it->second)) {
      close_connection(it->second);
      it = direct_.erase(it);
    } else {
      ++it;
    }
  }
}

DBusMessage* AtspiBus::call(DBusMessage* message, int timeout_ms, std::string* error) {
  std::vector<AtspiCall> calls(1);
  calls[0].message = message;
  run(calls, timeout_ms);
  if (error != nullptr) *error = calls[0].error;
  DBusMessage* reply = calls[0].reply;
  calls[0].reply = nullptr;
  return reply;
}

void release(std::vector<AtspiCall>& calls) {
  for (AtspiCall& call : calls) {
    if (call.message != nullptr) dbus_message_unref(call.message);
    if (call.pending != nullptr) {
      dbus_pending_call_cancel(call.pending);
      dbus_pending_call_unref(call.pending);
    }
    if (call.reply != nullptr) dbus_message_unref(call.reply);
    call = AtspiCall{};
  }
  calls.clear();
}

bool is_timeout_error(const std::string& name) {
  return name == "org.freedesktop.DBus.Error.NoReply" ||
         name == "org.freedesktop.DBus.Error.Timeout" ||
         name == "org.freedesktop.DBus.Error.TimedOut";
}

namespace {

// Whether the reply's first argument has the D-Bus type `type`; `iter` then points at it.
bool first_argument(DBusMessage* reply, int type, DBusMessageIter& iter) {
  return reply != nullptr && dbus_message_iter_init(reply, &iter) &&
         dbus_message_iter_get_arg_type(&iter) == type;
}

// The contents of the reply's first argument when it is a container of the D-Bus type `type`
// (an array, a struct or a variant).
bool first_container(DBusMessage* reply, int type, DBusMessageIter& contents) {
  DBusMessageIter iter;
  if (!first_argument(reply, type, iter)) return false;
  dbus_message_iter_recurse(&iter, &contents);
  return true;
}

}  // namespace

bool read_uint32(DBusMessage* reply, std::uint32_t& out) {
  DBusMessageIter iter;
  if (!first_argument(reply, DBUS_TYPE_UINT32, iter)) return false;
  dbus_uint32_t value = 0;
  dbus_message_iter_get_basic(&iter, &value);
  out = value;
  return true;
}

// The value of a reply's single variant argument when the variant holds the D-Bus basic type
// Type; `out` is the type's C representation (const char* for a string).
template <int Type, typename Value>
bool read_variant(DBusMessage* reply, Value& out) {
  DBusMessageIter variant;
  if (!first_container(reply, DBUS_TYPE_VARIANT, variant) ||
      dbus_message_iter_get_arg_type(&variant) != Type) {
    return false;
  }
  dbus_message_iter_get_basic(&variant, &out);
  return true;
}

bool read_string_variant(DBusMessage* reply, std::string& out) {
  const char* text = nullptr;
  if (!read_variant<DBUS_TYPE_STRING>(reply, text)) return false;
  out = text != nullptr ? text : "";
  return true;
}

bool read_int32_variant(DBusMessage* reply, std::int32_t& out) {
  dbus_int32_t value = 0;
  if (!read_variant<DBUS_TYPE_INT32>(reply, value)) return false;
  out = value;
  return true;
}

bool read_string(DBusMessage* reply, std::string& out) {
  DBusMessageIter iter;
  if (!first_argument(reply, DBUS_TYPE_STRING, iter)) return false;
  const char* text = nullptr;
  dbus_message_iter_get_basic(&iter, &text);
  out = text != nullptr ? text : "";
  return true;
}

bool read_state_set(DBusMessage* reply, std::uint32_t out[2]) {
  DBusMessageIter array;
  out[0] = out[1] = 0;
  if (!first_container(reply, DBUS_TYPE_ARRAY, array)) return false;
  for (int i = 0; i < 2 && dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_UINT32; ++i) {
    dbus_uint32_t word = 0;
    dbus_message_iter_get_basic(&array, &word);
    out[i] = word;
    dbus_message_iter_next(&array);
  }
  return true;
}

bool read_strings(DBusMessage* reply, std::vector<std::string>& out) {
  DBusMessageIter array;
  out.clear();
  if (!first_container(reply, DBUS_TYPE_ARRAY, array)) return false;
  while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_STRING) {
    const char* text = nullptr;
    dbus_message_iter_get_basic(&array, &text);
    out.push_back(text != nullptr ? text : "");
    dbus_message_iter_next(&array);
  }
  return true;
}

namespace {

bool read_ref_struct(DBusMessageIter* iter, AtspiRef& out) {
  if (dbus_message_iter_get_arg_type(iter) != DBUS_TYPE_STRUCT) return false;
  DBusMessageIter fields;
  dbus_message_iter_recurse(iter, &fields);
  const char* bus = nullptr;
  const char* path = nullptr;
  if (dbus_message_iter_get_arg_type(&fields) != DBUS_TYPE_STRING) return false;
  dbus_message_iter_get_basic(&fields, &bus);
  dbus_message_iter_next(&fields);
  if (dbus_message_iter_get_arg_type(&fields) != DBUS_TYPE_OBJECT_PATH) return false;
  dbus_message_iter_get_basic(&fields, &path);
  out.bus = bus != nullptr ? bus : "";
  out.path = path != nullptr ? path : "";
  return true;
}

}  // namespace

bool read_refs(DBusMessage* reply, std::vector<AtspiRef>& out) {
  DBusMessageIter array;
  out.clear();
  if (!first_container(reply, DBUS_TYPE_ARRAY, array)) return false;
  AtspiRef ref;
  while (read_ref_struct(&array, ref)) {
    out.push_back(ref);
    dbus_message_iter_next(&array);
  }
  return true;
}

bool read_ref(DBusMessage* reply, AtspiRef& out) {
  DBusMessageIter iter;
  if (reply == nullptr || !dbus_message_iter_init(reply, &iter)) return false;
  return read_ref_struct(&iter, out);
}

bool read_rect(DBusMessage* reply, int out[4]) {
  DBusMessageIter fields;
  if (!first_container(reply, DBUS_TYPE_STRUCT, fields)) return false;
  for (int i = 0; i < 4; ++i) {
    if (dbus_message_iter_get_arg_type(&fields) != DBUS_TYPE_INT32) return false;
    dbus_int32_t value = 0;
    dbus_message_iter_get_basic(&fields, &value);
    out[i] = value;
    dbus_message_iter_next(&fields);
  }
  return true;
}

}  // namespace vc::desktop_agent
