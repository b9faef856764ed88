// protocol.h — the line protocol: reading request lines, writing replies, and reading a
// request's fields strictly (a wrong type or range is `invalid_argument`, never a guess).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent_error.h"

namespace vc::desktop_agent {

using json = nlohmann::json;

constexpr int kProtocolVersion = 1;
constexpr const char* kAgentName = "vc-desktop-agent 1.0";
constexpr std::size_t kMaxLineBytes = 16u * 1024 * 1024;

// Splits the bytes read from stdin into lines; a line over the limit is reported once and
// skipped up to its newline instead of being buffered.
class LineReader {
 public:
  // Feeds bytes; calls on_line for each complete line and on_overlong for each skipped one.
  void feed(const char* data, std::size_t size, const std::function<void(std::string&)>& on_line,
            const std::function<void()>& on_overlong);

 private:
  std::string pending_;
  bool skipping_ = false;
};

// Writes one JSON object and a newline to stdout, all of it (stdout is blocking).
void write_line(const json& message);
json ok_reply(const json& id, json result);
json error_reply(const json& id, ErrorCode code, const std::string& message);

// The fields of one request. Absent and null are the same: "not given".
class Request {
 public:
  explicit Request(const json& body) : body_(body) {}

  const json& body() const { return body_; }
  bool has(const char* name) const;

  std::int64_t integer(const char* name, std::int64_t min, std::int64_t max) const;
  std::int64_t integer_or(const char* name, std::int64_t min, std::int64_t max,
                          std::int64_t fallback) const;
  std::optional<std::int64_t> optional_integer(const char* name, std::int64_t min,
                                               std::int64_t max) const;
  bool boolean_or(const char* name, bool fallback) const;
  const std::string& string(const char* name) const;
  std::optional<std::string> optional_string(const char* name) const;
  // One of `choices`; `fallback` (when not null) is used when the field is absent.
  std::string choice(const char* name, std::initializer_list<const char*> choices,
                     const char* fallback = nullptr) const;
  const json& array(const char* name) const;

 private:
  const json& field(const char* name) const;
  const json& body_;
};

// "a, b or c" for messages.
std::string join_choices(std::initializer_list<const char*> choices);

// Number of Unicode code points of valid UTF-8 text.
std::size_t count_code_points(const std::string& utf8);

}  // namespace vc::desktop_agent
