// http_stateless_checks.h — what a 2026-07-28 POST to /mcp must show before it is served.
//
// A stateless request describes itself twice: in its body (params._meta, the method, the
// name it acts on) and in headers a proxy can route on without reading the body. The checks
// run in the order the revision asks for, and the first failure is the answer (HTTP 400, the
// request's id echoed):
//   1. the envelope: params._meta with the protocol version and the client's capabilities
//      (-32602);
//   2. the headers: MCP-Protocol-Version equal to the body's version, Mcp-Method equal to the
//      method, Mcp-Name equal to params.name (tools/call, prompts/get), params.uri
//      (resources/read) or params.taskId (tasks/get, tasks/update, tasks/cancel) (-32020);
//      a header value may come as =?base64?…?= and is compared decoded; names are
//      case-insensitive, values exact after trimming spaces and tabs;
//   3. the version: one this server serves statelessly (-32022, with data.supported and
//      data.requested).
// A method this server does not know (-32601, 404) and a missing client capability (-32021)
// are found by the session that serves the request.
//
// Thread rule: pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "mcp/protocol_era.h"
#include "transport/http_message.h"

namespace vc::transport {

// The first thing wrong with `message` (a request) and `request`'s headers, or nullopt.
std::optional<mcp::ProtocolError> check_stateless_post(const HttpRequest& request,
                                                       const Json& message);

// A header value as sent: trimmed, and decoded when it is =?base64?…?=; nullopt when it
// claims base64 but is not.
std::optional<std::string> header_value_text(std::string_view raw);

// The HTTP status of a 2026 request's error answer: 404 for an unknown method, 400 for the
// revision's own refusals (-32020, -32021, -32022), 200 for every other error (a handler's).
int stateless_error_status(int code);

}  // namespace vc::transport
