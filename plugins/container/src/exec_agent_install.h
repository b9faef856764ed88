// exec_agent_install.h — putting the exec agent program into a container (docs/exec-agent.md).
//
// The program (vc_agent_channel/exec_agent_program.h) is wrapped in a tar archive (a
// root-owned folder, mode 0755, holding the program, mode 0555) and copied into the container
// with the engine's archive API, at kExecAgentPathInComputer. The copy lives in the
// container's writable layer: restarts keep it, a new container needs it again.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <vc_agent_channel/exec_agent_program.h>

#include "container_calls.h"

namespace vc::container {

using agent_channel::kExecAgentFolderInComputer;
using agent_channel::kExecAgentPathInComputer;
using agent_channel::kExecAgentFileName;

// The archive of a program given as bytes (`program`); exposed for tests. Any thread.
Expected<std::string> exec_agent_archive_of(std::string_view program);

// PUT /containers/{container}/archive?path=/ with `archive`. A read-only root filesystem, or an
// engine that refuses, fails with the engine's reason. EngineLoop thread.
void install_exec_agent(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                        const std::string& container, std::string archive, Callback<Done> done);

}  // namespace vc::container
