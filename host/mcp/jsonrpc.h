// jsonrpc.h — JSON-RPC 2.0 framing as MCP uses it: reading one message, sorting it into
// request / notification / response, and building replies.
//
// MCP narrows JSON-RPC: ids are strings or integers (never null), params are objects, and
// since 2025-06-18 batches (JSON arrays) are not allowed. Everything here is pure and
// thread-agnostic.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/failure.h"
#include "common/json.h"

namespace vc::mcp::jsonrpc {

// The error codes JSON-RPC 2.0 reserves (§5.1).
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
};

enum class MessageKind {
  request,       // has a method and an id: must be answered
  notification,  // has a method, no id: never answered
  response,      // has result or error and an id: a reply to something we sent
  invalid,       // anything else: answered with kInvalidRequest
};

struct Message {
  MessageKind kind = MessageKind::invalid;
  Json id;             // the request/response id; for an invalid message the id if readable
  std::string method;  // requests and notifications
  Json params;         // the "params" member; null when absent
  std::string problem; // invalid only: why, as a sentence for the error reply
};

// Messages nested deeper than this (arrays and objects) are refused as parse errors.
inline constexpr size_t kMaxNestingDepth = 256;

// Parses one line of text. The failure message describes the syntax error.
Expected<Json> parse(std::string_view text);

// Sorts a parsed value. Never throws.
Message classify(const Json& value);

// True for the id types MCP allows: a string or an integer (an integral float counts).
bool is_valid_id(const Json& id);

Json make_result(const Json& id, Json result);
// `data`, when not null, goes into the error object's "data" member.
Json make_error(const Json& id, int code, const std::string& message, Json data = nullptr);
Json make_notification(const std::string& method, Json params);

// One line for the wire: compact, no newline inside (JSON escapes them), invalid UTF-8 in
// strings replaced by U+FFFD instead of failing. The caller appends the '\n'.
std::string serialize(const Json& message);

}  // namespace vc::mcp::jsonrpc
