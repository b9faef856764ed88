// protocol_era.h — the two eras of MCP this server speaks, told apart per message.
//
// The 2025 revisions (2025-11-25, 2025-06-18, 2025-03-26) are sessionful: `initialize` fixes
// the client's capabilities and the protocol version for the session (a stdio process or an
// HTTP session). The 2026-07-28 revision is stateless: every request carries them itself in
// `params._meta` (the request's envelope), `server/discover` replaces `initialize`, and a
// request may land on any host process behind a load balancer.
//
// A message belongs to the 2026 era when its `params._meta` names a protocol version
// ("claims" the era, docs/protocol.md "Two eras"); every other message is 2025 traffic. Both
// eras run side by side on one stdio process and on one HTTP endpoint.
//
// Thread rule: pure functions and plain values; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "mcp/tool.h"

namespace vc::mcp {

// The stateless revision, and the versions of that era this server serves (newest first).
inline constexpr const char* kStatelessProtocolVersion = "2026-07-28";
inline constexpr const char* kStatelessProtocolVersions[] = {"2026-07-28"};

// The keys of a 2026 request's params._meta.
namespace envelope_keys {
inline constexpr const char* kProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr const char* kServerInfo = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* kSubscriptionId = "io.modelcontextprotocol/subscriptionId";
}  // namespace envelope_keys

// The 2026 revision's error codes (beside JSON-RPC's own, jsonrpc.h).
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;

// A request refused before any handler ran, with what the HTTP transport answers it with.
struct ProtocolError {
  int code = 0;
  std::string message;
  Json data;            // null: none
  int http_status = 400;
};

// What a 2026 request says about its client, read from its envelope.
struct RequestEnvelope {
  std::string protocol_version;
  Json client_capabilities = Json::object();
  Json client_info;                  // null when the client sent none (allowed)
  std::optional<LogLevel> log_level; // none: no notifications/message for this request
};

// True when the message's params._meta names a protocol version: 2026-era traffic.
bool claims_stateless_era(const Json& message);
// True for a version string of the 2026 era or later ("2026-07-28", and anything that sorts
// after it, as the TypeScript SDK decides); such an HTTP header makes a POST 2026 traffic.
bool names_stateless_era(std::string_view version);
// True for the versions in kStatelessProtocolVersions.
bool serves_stateless_version(std::string_view version);

// Reads and checks a 2026 request's envelope: -32602 when a required key is missing or of the
// wrong type (or the log level is unknown), -32022 (with data.supported and data.requested)
// for a version this server does not serve.
sdk::Expected<RequestEnvelope, ProtocolError> read_request_envelope(const Json& params);

// The versions of kStatelessProtocolVersions as a JSON array (server/discover, -32022's data).
Json stateless_protocol_versions();

// A client's words for an error message: in single quotes, cut to 64 bytes at a UTF-8 boundary.
std::string quoted_excerpt(std::string_view text);

// The -32022 refusal of `requested`.
ProtocolError unsupported_version_error(const std::string& requested);

// Methods of the 2025 revisions the 2026 revision removed: -32601 in a 2026 request.
bool removed_in_stateless_era(std::string_view method);

}  // namespace vc::mcp
