// request_writer.h — serialises an HttpRequest to HTTP/1.1 bytes.
//
// Writing a request is simple and fully under our control, so it is done by hand (parsing the
// engine's answer is not: that is llhttp's job). Pure functions; any thread.
#pragma once

#include <string>

#include "vc_engine/engine_address.h"
#include "vc_engine/engine_error.h"
#include "vc_engine/http_types.h"

namespace vc::engine::detail {

// How the request asks the engine to treat the connection afterwards.
enum class ConnectionMode {
  kClose,    // Connection: close — one request per connection
  kUpgrade,  // Connection: Upgrade + Upgrade: tcp — the exec/attach hijack
};

// Builds the request bytes: request line, Host (from the address), User-Agent, Content-Type
// (when set), Content-Length (when there is a body, or always for POST/PUT/PATCH), the caller's
// headers, the Connection header(s), a blank line, the body.
// kInvalidArgument when the method, target or a header contains CR, LF or NUL (they would let a
// value smuggle extra headers into the request) or the method/target is empty.
Result<std::string> write_request(const HttpRequest& request, const EngineAddress& address,
                                  const std::string& user_agent, ConnectionMode mode);

}  // namespace vc::engine::detail
