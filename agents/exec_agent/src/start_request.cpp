#include "start_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace vc::exec_agent {
namespace {

using nlohmann::json;

// Ten years: larger timeouts mean "none" in practice, and clamping keeps deadline arithmetic
// far from overflow.
constexpr std::uint64_t kLongestTimeoutMs = 10ull * 365 * 24 * 3600 * 1000;

// Strings end up as C strings (argv, environment, chdir): an embedded NUL would silently cut
// them, running something other than what was asked.
bool has_nul(const std::string& text) { return text.find('\0') != std::string::npos; }

ParsedStartRequest refuse(std::string why) { return {std::nullopt, std::move(why)}; }

// Reads an optional non-negative integer field; false (with `error`) when present but invalid.
bool read_count(const json& body, const char* name, std::uint64_t& value, std::string& error) {
  const auto field = body.find(name);
  if (field == body.end() || field->is_null()) return true;
  if (!field->is_number_unsigned()) {
    error = std::string("\"") + name + "\" must be a non-negative integer";
    return false;
  }
  value = field->get<std::uint64_t>();
  return true;
}

}  // namespace

ParsedStartRequest parse_start_request(std::string_view payload) {
  json body = json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return refuse("the payload is not valid JSON");
  if (!body.is_object()) return refuse("the payload is not a JSON object");

  StartRequest request;

  const auto argv = body.find("argv");
  if (argv == body.end() || !argv->is_array()) return refuse("\"argv\" must be an array");
  if (argv->empty()) return refuse("\"argv\" must not be empty");
  for (const auto& word : *argv) {
    if (!word.is_string()) return refuse("\"argv\" must hold only strings");
    request.argv.push_back(word.get<std::string>());
    if (has_nul(request.argv.back())) return refuse("\"argv\" must not contain NUL characters");
  }
  if (request.argv.front().empty()) return refuse("\"argv\"[0] must not be empty");

  if (const auto cwd = body.find("cwd"); cwd != body.end() && !cwd->is_null()) {
    if (!cwd->is_string()) return refuse("\"cwd\" must be a string");
    request.cwd = cwd->get<std::string>();
    if (has_nul(*request.cwd)) return refuse("\"cwd\" must not contain NUL characters");
  }

  if (const auto env = body.find("env"); env != body.end() && !env->is_null()) {
    if (!env->is_object()) return refuse("\"env\" must be an object");
    for (const auto& [name, value] : env->items()) {
      if (name.empty() || name.find('=') != std::string::npos || has_nul(name)) {
        return refuse("\"env\" has an invalid variable name");
      }
      if (!value.is_string()) return refuse("\"env\" values must be strings");
      request.env.emplace_back(name, value.get<std::string>());
      if (has_nul(request.env.back().second)) {
        return refuse("\"env\" values must not contain NUL characters");
      }
    }
  }

  std::string error;
  std::uint64_t timeout_ms = 0;
  if (!read_count(body, "timeout_ms", timeout_ms, error)) return refuse(error);
  request.timeout_ms = static_cast<Millis>(std::min(timeout_ms, kLongestTimeoutMs));
  if (!read_count(body, "output_limit", request.output_limit, error)) return refuse(error);

  if (const auto input = body.find("stdin"); input != body.end() && !input->is_null()) {
    if (!input->is_boolean()) return refuse("\"stdin\" must be true or false");
    request.stdin_open = input->get<bool>();
  }
  return {std::move(request), {}};
}

}  // namespace vc::exec_agent
