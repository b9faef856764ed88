// jsonrpc.cpp — see jsonrpc.h.
#include "mcp/jsonrpc.h"

#include <algorithm>
#include <cmath>

namespace vc::mcp::jsonrpc {
namespace {

// The deepest nesting of [ and { outside strings, stopping early past `limit`.
size_t nesting_depth(std::string_view text, size_t limit) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Message invalid(const Json& id, std::string problem) {
  Message message;
  message.kind = MessageKind::invalid;
  message.id = is_valid_id(id) ? id : Json();
  message.problem = std::move(problem);
  return message;
}

}  // namespace

Expected<Json> parse(std::string_view text) {
  // Copying, comparing and printing JSON values recurses once per level: refuse absurd
  // nesting up front instead of overflowing the stack later.
  if (nesting_depth(text, kMaxNestingDepth) > kMaxNestingDepth) {
    return Failure{kParseError, "the message is nested deeper than " +
                                    std::to_string(kMaxNestingDepth) + " levels"};
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& error) {
    // A syntax error (parse_error) or a number that overflows a double (out_of_range.406,
    // "1e999999"): both are a message that cannot be read, answered with -32700, never an
    // exception that ends the process. what() starts with "[json.exception.parse_error.101] ";
    // the rest is the useful part.
    std::string detail = error.what();
    const size_t tag_end = detail.find("] ");
    if (tag_end != std::string::npos) detail.erase(0, tag_end + 2);
    return Failure{kParseError, detail};
  }
}

bool is_valid_id(const Json& id) {
  if (id.is_string() || id.is_number_integer()) return true;
  if (id.is_number_float()) {
    const double value = id.get<double>();
    return std::isfinite(value) && std::trunc(value) == value;
  }
  return false;
}

Message classify(const Json& value) {
  if (value.is_array()) {
    return invalid(nullptr, "batches (JSON arrays) are not supported; send one message per line");
  }
  if (!value.is_object()) return invalid(nullptr, "a message must be a JSON object");

  const auto id = value.find("id");
  const Json id_value = id == value.end() ? Json() : *id;
  const auto version = value.find("jsonrpc");
  if (version == value.end() || *version != "2.0") {
    return invalid(id_value, "\"jsonrpc\" must be \"2.0\"");
  }
  if (id != value.end() && !is_valid_id(*id)) {
    return invalid(nullptr, "\"id\" must be a string or an integer");
  }

  const auto method = value.find("method");
  if (method != value.end()) {
    if (!method->is_string()) return invalid(id_value, "\"method\" must be a string");
    const auto params = value.find("params");
    if (params != value.end() && !params->is_object() && !params->is_array()) {
      return invalid(id_value, "\"params\" must be an object");
    }
    Message message;
    message.kind = id == value.end() ? MessageKind::notification : MessageKind::request;
    message.id = id_value;
    message.method = method->get<std::string>();
    message.params = params == value.end() ? Json() : *params;
    return message;
  }

  const bool has_result = value.contains("result");
  const bool has_error = value.contains("error");
  if (id != value.end() && has_result != has_error) {
    Message message;
    message.kind = MessageKind::response;
    message.id = id_value;
    return message;
  }
  return invalid(id_value, "a message needs \"method\", or \"id\" with \"result\" or \"error\"");
}

Json make_result(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json make_error(const Json& id, int code, const std::string& message, Json data) {
  Json error{{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = std::move(data);
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

Json make_notification(const std::string& method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string serialize(const Json& message) {
  return message.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace vc::mcp::jsonrpc
