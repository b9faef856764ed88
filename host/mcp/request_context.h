// request_context.h — how one request is served: its era and, in the 2026 era, what the
// request said about its client.
//
// A 2025 request is served with what its session's `initialize` fixed (the client's
// capabilities, the level set with logging/setLevel). A 2026 request carries all of it in its
// envelope (protocol_era.h) and nothing of an earlier request counts for it: the session only
// routes it. The context goes with the request to its handler and, for tools/call, with the
// call (session_tool_call.h) until the call's result is sent.
//
// Thread rule: a plain value; [loop-thread] where a session uses it.
#pragma once

#include "mcp/protocol_era.h"

namespace vc::mcp {

struct RequestContext {
  bool stateless = false;    // a 2026-07-28 request
  RequestEnvelope envelope;  // stateless only: the request's own capabilities and log level
};

}  // namespace vc::mcp
