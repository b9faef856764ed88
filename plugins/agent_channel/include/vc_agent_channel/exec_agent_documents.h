// exec_agent_documents.h — the JSON documents the exec agent sends (docs/exec-agent.md), read
// without trusting them: a field of another type counts as absent, nothing throws.
// Pure; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vc::agent_channel {

struct AgentHello {
  std::string version;  // "" when absent
  std::int64_t protocol = -1;
};

struct AgentExit {
  std::string outcome;  // exited, timed_out, output_limit_exceeded, cancelled, start_failed
  std::int64_t exit_code = -1;
  std::optional<std::int64_t> duration_ms;
  std::string error_code;  // with start_failed: cwd_missing, cwd_unusable, fork_failed
  std::string error;
};

// nullopt when the payload is not a JSON object.
std::optional<AgentHello> parse_agent_hello(std::string_view payload);
std::optional<AgentExit> parse_agent_exit(std::string_view payload);
// The "message" of an error frame, or the payload itself when it has none.
std::string agent_error_message(std::string_view payload);

}  // namespace vc::agent_channel
