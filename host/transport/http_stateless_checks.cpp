// http_stateless_checks.cpp — see http_stateless_checks.h.
#include "transport/http_stateless_checks.h"

#include "common/base64.h"
#include "mcp/jsonrpc.h"

namespace vc::transport {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

mcp::ProtocolError mismatch(const std::string& what) {
  return mcp::ProtocolError{mcp::kHeaderMismatch, "Header mismatch: " + what, nullptr, 400};
}

// The body member the Mcp-Name header must repeat for `method`, or nullptr when it has none.
const char* named_member(std::string_view method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
    return "taskId";
  }
  return nullptr;
}

// Compares header `name` (lower case) with the body's `expected`.
std::optional<mcp::ProtocolError> check_header(const HttpRequest& request, const char* name,
                                               const char* shown_name,
                                               const std::string& expected) {
  const auto raw = request.header(name);
  if (!raw) {
    return mismatch(std::string(shown_name) + " header is missing (the body says " +
                    mcp::quoted_excerpt(expected) + ")");
  }
  const auto value = header_value_text(*raw);
  if (!value) {
    return mismatch(std::string(shown_name) + " header value " + mcp::quoted_excerpt(*raw) +
                    " is not valid =?base64?…?=");
  }
  if (*value != expected) {
    return mismatch(std::string(shown_name) + " header value " + mcp::quoted_excerpt(*value) +
                    " does not match body value " + mcp::quoted_excerpt(expected));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> header_value_text(std::string_view raw) {
  const std::string_view value = trimmed(raw);
  constexpr std::string_view kPrefix = "=?base64?";
  constexpr std::string_view kSuffix = "?=";
  if (value.size() < kPrefix.size() + kSuffix.size() || value.substr(0, kPrefix.size()) != kPrefix ||
      value.substr(value.size() - kSuffix.size()) != kSuffix) {
    return std::string(value);
  }
  return base64_decode(value.substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size()));
}

std::optional<mcp::ProtocolError> check_stateless_post(const HttpRequest& request,
                                                       const Json& message) {
  const Json params = message.value("params", Json());
  auto envelope = mcp::read_request_envelope(params);
  if (!envelope && envelope.error().code != mcp::kUnsupportedProtocolVersion) {
    return envelope.error();
  }
  // The envelope's version is a string here: read_request_envelope checked it.
  const std::string version =
      params["_meta"][mcp::envelope_keys::kProtocolVersion].get<std::string>();
  if (auto wrong = check_header(request, "mcp-protocol-version", "MCP-Protocol-Version", version)) {
    return wrong;
  }
  const std::string method = message["method"].get<std::string>();
  if (auto wrong = check_header(request, "mcp-method", "Mcp-Method", method)) return wrong;
  if (const char* member = named_member(method)) {
    const auto named = params.find(member);
    if (named != params.end() && named->is_string()) {
      if (auto wrong = check_header(request, "mcp-name", "Mcp-Name", named->get<std::string>())) {
        return wrong;
      }
    }
  }
  if (!envelope) return envelope.error();
  return std::nullopt;
}

int stateless_error_status(int code) {
  if (code == mcp::jsonrpc::kMethodNotFound) return 404;
  if (code == mcp::kHeaderMismatch || code == mcp::kMissingClientCapability ||
      code == mcp::kUnsupportedProtocolVersion) {
    return 400;
  }
  return 200;
}

}  // namespace vc::transport
