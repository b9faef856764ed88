// protocol.cpp — line splitting, reply writing and strict field access.
#include "protocol.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <unistd.h>

namespace vc::desktop_agent {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kFailed: return "failed";
  }
  return "failed";
}

void LineReader::feed(const char* data, std::size_t size,
                      const std::function<void(std::string&)>& on_line,
                      const std::function<void()>& on_overlong) {
  std::size_t start = 0;
  while (start < size) {
    const void* found = memchr(data + start, '\n', size - start);
    if (found == nullptr) {
      if (!skipping_) {
        pending_.append(data + start, size - start);
        if (pending_.size() > kMaxLineBytes) {
          pending_.clear();
          pending_.shrink_to_fit();
          skipping_ = true;
          on_overlong();
        }
      }
      return;
    }
    const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(found) - data);
    if (skipping_) {
      skipping_ = false;
    } else {
      pending_.append(data + start, end - start);
      if (pending_.size() > kMaxLineBytes) {
        on_overlong();
      } else {
        if (!pending_.empty() && pending_.back() == '\r') pending_.pop_back();
        on_line(pending_);
      }
      pending_.clear();
    }
    start = end + 1;
  }
}

void write_line(const json& message) {
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t written = write(STDOUT_FILENO, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      // The plugin closed the channel: nobody is left to answer.
      _exit(0);
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

json ok_reply(const json& id, json result) {
  json reply = json::object();
  reply["id"] = id;
  reply["ok"] = true;
  reply["result"] = std::move(result);
  return reply;
}

json error_reply(const json& id, ErrorCode code, const std::string& message) {
  json reply = json::object();
  reply["id"] = id;
  reply["ok"] = false;
  reply["code"] = error_code_name(code);
  reply["error"] = message;
  return reply;
}

std::string join_choices(std::initializer_list<const char*> choices) {
  std::string text;
  std::size_t index = 0;
  for (const char* choice : choices) {
    if (index > 0) text += (index + 1 == choices.size()) ? " or " : ", ";
    text += choice;
    ++index;
  }
  return text;
}

std::size_t count_code_points(const std::string& utf8) {
  std::size_t count = 0;
  for (unsigned char c : utf8) {
    if ((c & 0xC0) != 0x80) ++count;
  }
  return count;
}

namespace {
const json& null_json() {
  static const json value;
  return value;
}
std::string quoted(const char* name) { return std::string("'") + name + "'"; }
}  // namespace

const json& Request::field(const char* name) const {
  auto it = body_.find(name);
  return it == body_.end() ? null_json() : *it;
}

bool Request::has(const char* name) const { return !field(name).is_null(); }

std::optional<std::int64_t> Request::optional_integer(const char* name, std::int64_t min,
                                                      std::int64_t max) const {
  const json& value = field(name);
  if (value.is_null()) return std::nullopt;
  // Coordinates take any int32 and are checked against the screen afterwards.
  const bool unbounded = min == INT32_MIN && max == INT32_MAX;
  const std::string range =
      unbounded ? "." : " from " + std::to_string(min) + " to " + std::to_string(max) + ".";
  if (!value.is_number_integer()) throw_invalid(quoted(name) + " must be an integer" + range);
  std::int64_t number = 0;
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.get<std::uint64_t>();
    if (unsigned_value > static_cast<std::uint64_t>(INT64_MAX)) {
      throw_invalid(quoted(name) + " must be an integer" + range);
    }
    number = static_cast<std::int64_t>(unsigned_value);
  } else {
    number = value.get<std::int64_t>();
  }
  if (number < min || number > max) throw_invalid(quoted(name) + " must be an integer" + range);
  return number;
}

std::int64_t Request::integer(const char* name, std::int64_t min, std::int64_t max) const {
  auto value = optional_integer(name, min, max);
  if (!value) throw_invalid(quoted(name) + " is required.");
  return *value;
}

std::int64_t Request::integer_or(const char* name, std::int64_t min, std::int64_t max,
                                 std::int64_t fallback) const {
  return optional_integer(name, min, max).value_or(fallback);
}

bool Request::boolean_or(const char* name, bool fallback) const {
  const json& value = field(name);
  if (value.is_null()) return fallback;
  if (!value.is_boolean()) throw_invalid(quoted(name) + " must be true or false.");
  return value.get<bool>();
}

const std::string& Request::string(const char* name) const {
  const json& value = field(name);
  if (value.is_null()) throw_invalid(quoted(name) + " is required.");
  if (!value.is_string()) throw_invalid(quoted(name) + " must be a string.");
  return value.get_ref<const std::string&>();
}

std::optional<std::string> Request::optional_string(const char* name) const {
  if (!has(name)) return std::nullopt;
  return string(name);
}

std::string Request::choice(const char* name, std::initializer_list<const char*> choices,
                            const char* fallback) const {
  const json& value = field(name);
  if (value.is_null()) {
    if (fallback != nullptr) return fallback;
    throw_invalid(quoted(name) + " is required: " + join_choices(choices) + ".");
  }
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    for (const char* choice : choices) {
      if (text == choice) return text;
    }
  }
  throw_invalid(quoted(name) + " must be " + join_choices(choices) + ".");
}

const json& Request::array(const char* name) const {
  const json& value = field(name);
  if (value.is_null()) throw_invalid(quoted(name) + " is required.");
  if (!value.is_array()) throw_invalid(quoted(name) + " must be an array.");
  return value;
}

}  // namespace vc::desktop_agent
