// exec_agent_program.h — the exec agent's program (docs/exec-agent.md): where it lives in a
// computer, which version this plugin expects, and its bytes, read from beside the plugin.
//
// The program is installed beside the plugin file, in exec-agent/vc-exec-agent
// (vc_agent_channel_add_exec_agent in this room's CMakeLists.txt), unless the operator names
// another file (--exec-agent-binary). A copy in a computer lives in its writable layer: a
// restart keeps it, a new container or pod needs it again.
#pragma once

#include <string>
#include <string_view>

#include "channel_types.h"

namespace vc::agent_channel {

inline constexpr const char* kExecAgentFolderInComputer = ".mcp-virtual-computer";
inline constexpr const char* kExecAgentPathInComputer = "/.mcp-virtual-computer/vc-exec-agent";
// Beside the plugin file: exec-agent/vc-exec-agent.
inline constexpr std::string_view kExecAgentFolderName = "exec-agent";
inline constexpr std::string_view kExecAgentFileName = "vc-exec-agent";

// The version the agent built with this plugin reports in its hello frame:
// "sha256-<16 hex digits>", the digest of the agent's sources when the plugin was built. A
// computer whose agent says another version gets this one. Any thread.
std::string_view exec_agent_version();

// The program's bytes, from `configured` (--exec-agent-binary) or, when empty, from beside the
// plugin file this code was loaded from. VC_E_UNSUPPORTED with a sentence naming the file
// looked at and the options that change it when it is missing or not a Linux program. Any
// thread (blocking file I/O on one file of about a megabyte).
Expected<std::string> load_exec_agent_program(std::string_view configured);

}  // namespace vc::agent_channel
