// host_environment.h — the environment a server under test gets: the test's own, minus the
// variables of a developer's shell that would change what the server does, plus the test's.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "command_runner.h"

namespace vc::test {

// Variables removed from every server's environment unless the test sets them: the
// computer's identity and settings, authentication, the plugin search path, the state
// directory's base, and the engine addresses plugins read by default.
const std::vector<std::string>& scrubbed_host_variables();

// The change set (for SpawnOptions / McpClientOptions / run_command) that removes the
// scrubbed variables and applies `extra` on top (std::nullopt in `extra` removes a variable).
Environment host_environment(const Environment& extra = {});

}  // namespace vc::test
