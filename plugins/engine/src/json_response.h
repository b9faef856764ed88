// json_response.h — turning engine responses into JSON results and error values.
// Pure functions; any thread.
#pragma once

#include "vc_engine/engine_client.h"

namespace vc::engine::detail {

// The engine's own error text: the "message" member of a JSON body (Docker and Podman both
// send one), else the trimmed body (at most 512 bytes), else the reason phrase.
std::string engine_message_of(const HttpResponse& response);

// kHttpStatus with http_status, engine_message and "engine answered <status>: <text>".
EngineError http_status_error(const HttpResponse& response);

// status >= 400 -> http_status_error; else the body parsed as JSON (null when empty; a JSON
// string when it is not JSON and not labelled as JSON; kProtocol when labelled JSON but invalid).
Result<JsonResponse> to_json_response(Result<HttpResponse> response);

}  // namespace vc::engine::detail
