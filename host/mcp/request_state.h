// request_state.h — the state a tool hands its client in an input-required result, sealed so
// that what comes back is exactly what the server sent, for the same call, and not too old.
//
// In the 2026-07-28 revision a tool that needs the client (a confirmation, a sampling answer)
// returns `resultType: "input_required"` with its questions and a `requestState`; the client
// calls again with the answers and the state. The state is the client's to keep and send
// back, so it is treated as hostile: the server seals the tool's own JSON with HMAC-SHA256
// under its key, bound to the method and target (tools/call of which tool), a digest of the
// call's arguments and an expiry. A state that was altered, belongs to another call or is
// older than kRequestStateLifetime is refused before the tool runs.
//
// Host processes that serve one set of computers behind a load balancer must share the key
// (--request-state-key-file, docs/protocol.md): a state sealed by one is opened by another.
// The seal does not make a state single-use: a client may send the same answers twice.
//
// Thread rule: const members on any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "common/json.h"

namespace vc::mcp {

inline constexpr std::chrono::minutes kRequestStateLifetime{15};
// A requestState longer than this is refused unread.
inline constexpr std::size_t kMaxRequestStateBytes = 64 * 1024;

class RequestStateSeal {
 public:
  // `key`: the secret; empty makes a random one for this process.
  explicit RequestStateSeal(std::string key = {});

  // The token for `state` (any JSON of the tool's), bound to `target` ("tools/call x") and
  // `arguments`, valid until now + kRequestStateLifetime.
  std::string seal(const std::string& target, const Json& arguments, const Json& state) const;
  // The state inside `token`, when it is one this key sealed for `target` and `arguments`
  // and has not expired; nullopt otherwise.
  std::optional<Json> open(const std::string& token, const std::string& target,
                           const Json& arguments) const;

 private:
  std::string signature(const std::string& target, const Json& arguments,
                        const std::string& body, const std::string& expiry) const;
  std::string key_;
};

}  // namespace vc::mcp
