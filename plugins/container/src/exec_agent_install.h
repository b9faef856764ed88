// exec_agent_install.h — putting the exec agent program into a computer (docs/exec-agent.md).
//
// The program installed beside the plugin (or --exec-agent-binary) is read once, wrapped in a
// tar archive (a root-owned folder, mode 0755, holding the program, mode 0555) and copied into
// the container with the engine's archive API, at kExecAgentPathInComputer. The copy lives in
// the container's writable layer: restarts keep it, a new container needs it again.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "container_calls.h"

namespace vc::container {

inline constexpr const char* kExecAgentFolderInComputer = ".mcp-virtual-computer";
inline constexpr const char* kExecAgentPathInComputer = "/.mcp-virtual-computer/vc-exec-agent";
// Beside the plugin file: exec-agent/vc-exec-agent.
inline constexpr std::string_view kExecAgentFolderName = "exec-agent";
inline constexpr std::string_view kExecAgentFileName = "vc-exec-agent";

// The version this plugin's agent reports in its hello frame: "sha256-<16 hex digits>", the
// digest of the agent's sources taken when the plugin was built. Any thread.
std::string_view exec_agent_version();

// The archive copied into computers, made from the program at `configured` (or beside the
// plugin when empty). Fails with a sentence naming the file looked at and the option that
// overrides it. Any thread (blocking file I/O on one small file).
Expected<std::string> make_exec_agent_archive(std::string_view configured);

// The archive of a program given as bytes (`program`); exposed for tests. Any thread.
Expected<std::string> exec_agent_archive_of(std::string_view program);

// PUT /containers/{container}/archive?path=/ with `archive`. A read-only root filesystem, or an
// engine that refuses, fails with the engine's reason. EngineLoop thread.
void install_exec_agent(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                        const std::string& container, std::string archive, Callback<Done> done);

}  // namespace vc::container
