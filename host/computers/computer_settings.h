// computer_settings.h — how the server's own computer is set up and used: its id, the
// switches it is created with, and the command defaults every tool applies to it. Built once
// from the command line (docs/compatibility.md, "Defaults"); everything else reads it from the
// registry (ComputerRegistry::settings()), so no other room keeps a copy of its own.
#pragma once

#include <cstdint>
#include <string>

#include "common/computer_defaults.h"

namespace vc::computers {

struct ComputerSettings {
  std::string computer_id;  // slug-validated already
  bool network_access = defaults::kNetworkAccess;
  bool desktop_environment = defaults::kDesktopEnvironment;
  std::string shell{defaults::kShell};
  std::string workspace_directory{defaults::kWorkspaceDirectory};
  int64_t default_timeout_s = defaults::kCommandTimeoutS;  // when the call names none
  uint64_t output_limit = defaults::kOutputLimit;  // stdout and stderr bytes, per command
};

}  // namespace vc::computers
