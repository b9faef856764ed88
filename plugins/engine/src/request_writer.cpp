// request_writer.cpp — HTTP/1.1 request serialisation.
#include "request_writer.h"

#include <string_view>

namespace vc::engine::detail {
namespace {

bool has_control_bytes(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

EngineError invalid(std::string message) {
  return make_error(EngineErrorKind::kInvalidArgument, std::move(message));
}

bool method_always_has_length(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

void append_header(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += ": ";
  out += value;
  out += "\r\n";
}

}  // namespace

Result<std::string> write_request(const HttpRequest& request, const EngineAddress& address,
                                  const std::string& user_agent, ConnectionMode mode) {
  if (request.method.empty() || request.method.find(' ') != std::string::npos ||
      has_control_bytes(request.method)) {
    return invalid("HTTP method '" + request.method + "' is not valid");
  }
  if (request.target.empty() || request.target.front() != '/' ||
      request.target.find(' ') != std::string::npos || has_control_bytes(request.target)) {
    return invalid("request target '" + request.target +
                   "' is not valid (it must start with '/' and be URL-encoded)");
  }
  if (has_control_bytes(request.content_type) || has_control_bytes(user_agent)) {
    return invalid("a request header contains a line break");
  }
  for (const auto& [name, value] : request.headers.fields()) {
    if (name.empty() || has_control_bytes(name) || name.find(':') != std::string::npos ||
        has_control_bytes(value)) {
      return invalid("request header '" + name + "' is not valid");
    }
  }

  std::string out;
  out.reserve(256 + request.body.size());
  out += request.method;
  out += ' ';
  out += request.target;
  out += " HTTP/1.1\r\n";
  // HTTP/1.1 requires Host; both engines answer 400 without one.
  append_header(out, "Host", address.host_header());
  if (!user_agent.empty()) append_header(out, "User-Agent", user_agent);
  if (!request.content_type.empty()) append_header(out, "Content-Type", request.content_type);
  if (!request.body.empty() || method_always_has_length(request.method)) {
    append_header(out, "Content-Length", std::to_string(request.body.size()));
  }
  for (const auto& [name, value] : request.headers.fields()) append_header(out, name, value);
  if (mode == ConnectionMode::kUpgrade) {
    append_header(out, "Connection", "Upgrade");
    append_header(out, "Upgrade", "tcp");
  } else {
    append_header(out, "Connection", "close");
  }
  out += "\r\n";
  out += request.body;
  return out;
}

}  // namespace vc::engine::detail
