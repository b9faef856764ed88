// host_environment.cpp — see host_environment.h.
#include "host_environment.h"

namespace vc::test {

const std::vector<std::string>& scrubbed_host_variables() {
  static const std::vector<std::string> names = {
      "COMPUTER_ID",      "NETWORK_ACCESS",
      "DESKTOP_ENVIRONMENT", "KILNTAINERS_AUTH_TOKEN",
      "MCP_VIRTUAL_COMPUTER_AUTH_TOKEN", "MCP_VIRTUAL_COMPUTER_PLUGIN_PATH",
      "VC_PROCESS_SCRATCH_ROOT", "XDG_STATE_HOME",
      "DOCKER_HOST",      "DOCKER_CONTEXT",
      "CONTAINER_HOST"};
  return names;
}

Environment host_environment(const Environment& extra) {
  Environment environment;
  for (const auto& name : scrubbed_host_variables()) environment[name] = std::nullopt;
  for (const auto& [name, value] : extra) environment[name] = value;
  return environment;
}

}  // namespace vc::test
