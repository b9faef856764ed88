// protocol_era.cpp — see protocol_era.h.
#include "mcp/protocol_era.h"

#include <algorithm>
#include <iterator>

#include "mcp/jsonrpc.h"
#include "mcp/log_level.h"

namespace vc::mcp {
namespace {

// A client's words quoted in an error are cut to this many bytes.
constexpr std::size_t kQuotedBytes = 64;

const Json* meta_of(const Json& params) {
  if (!params.is_object()) return nullptr;
  const auto meta = params.find("_meta");
  return meta != params.end() && meta->is_object() ? &*meta : nullptr;
}

ProtocolError invalid_envelope(const std::string& why) {
  return ProtocolError{jsonrpc::kInvalidParams, "Invalid params: " + why, nullptr, 400};
}

}  // namespace

Json stateless_protocol_versions() {
  Json list = Json::array();
  for (const char* version : kStatelessProtocolVersions) list.push_back(version);
  return list;
}

std::string quoted_excerpt(std::string_view text) {
  if (text.size() <= kQuotedBytes) return "'" + std::string(text) + "'";
  std::size_t cut = kQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(text.substr(0, cut)) + "…'";
}

bool claims_stateless_era(const Json& message) {
  if (!message.is_object()) return false;
  const auto params = message.find("params");
  if (params == message.end()) return false;
  const Json* meta = meta_of(*params);
  return meta != nullptr && meta->contains(envelope_keys::kProtocolVersion);
}

bool names_stateless_era(std::string_view version) {
  return version >= std::string_view(kStatelessProtocolVersion);
}

bool serves_stateless_version(std::string_view version) {
  return std::any_of(std::begin(kStatelessProtocolVersions), std::end(kStatelessProtocolVersions),
                     [version](const char* served) { return version == served; });
}

ProtocolError unsupported_version_error(const std::string& requested) {
  std::string served;
  for (const char* version : kStatelessProtocolVersions) {
    served += (served.empty() ? "" : ", ") + std::string(version);
  }
  return ProtocolError{kUnsupportedProtocolVersion,
                       "Unsupported protocol version " + quoted_excerpt(requested) +
                           " (this server serves " + served +
                           " statelessly, and 2025-11-25, 2025-06-18 and 2025-03-26 through "
                           "initialize)",
                       Json{{"supported", stateless_protocol_versions()}, {"requested", requested}}, 400};
}

sdk::Expected<RequestEnvelope, ProtocolError> read_request_envelope(const Json& params) {
  const Json* meta = meta_of(params);
  if (meta == nullptr) {
    return invalid_envelope(
        "a 2026-07-28 request needs params._meta with the protocol version and the client's "
        "capabilities");
  }
  RequestEnvelope envelope;
  const auto version = meta->find(envelope_keys::kProtocolVersion);
  if (version == meta->end() || !version->is_string()) {
    return invalid_envelope(std::string("params._meta[\"") + envelope_keys::kProtocolVersion +
                            "\"] must be a string");
  }
  envelope.protocol_version = version->get<std::string>();
  const auto capabilities = meta->find(envelope_keys::kClientCapabilities);
  if (capabilities == meta->end() || !capabilities->is_object()) {
    return invalid_envelope(std::string("params._meta[\"") + envelope_keys::kClientCapabilities +
                            "\"] must be an object ({} when the client has no optional "
                            "capabilities)");
  }
  envelope.client_capabilities = *capabilities;
  if (const auto info = meta->find(envelope_keys::kClientInfo); info != meta->end()) {
    if (!info->is_object()) {
      return invalid_envelope(std::string("params._meta[\"") + envelope_keys::kClientInfo +
                              "\"] must be an object");
    }
    envelope.client_info = *info;
  }
  if (const auto level = meta->find(envelope_keys::kLogLevel); level != meta->end()) {
    const auto parsed = level->is_string() ? parse_log_level(level->get<std::string>())
                                           : std::nullopt;
    if (!parsed) {
      return invalid_envelope(std::string("params._meta[\"") + envelope_keys::kLogLevel +
                              "\"] must be one of debug, info, notice, warning, error, "
                              "critical, alert, emergency");
    }
    envelope.log_level = parsed;
  }
  if (!serves_stateless_version(envelope.protocol_version)) {
    return unsupported_version_error(envelope.protocol_version);
  }
  return envelope;
}

bool removed_in_stateless_era(std::string_view method) {
  return method == "initialize" || method == "ping" || method == "logging/setLevel" ||
         method == "resources/subscribe" || method == "resources/unsubscribe" ||
         method == "tasks/result" || method == "tasks/list";
}

}  // namespace vc::mcp
