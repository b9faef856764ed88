// computer_settings.h — how the server's own computer is set up and used: its id, the
// switches it is created with, and the command defaults every tool applies to it. Built once
// from the command line (docs/compatibility.md, "Defaults"); everything else reads it from the
// registry (ComputerRegistry::settings()), so no other room keeps a copy of its own.
#pragma once

#include <cstdint>
#include <string>

namespace vc::computers {

struct ComputerSettings {
  std::string computer_id;  // slug-validated already
  bool network_access = true;
  bool desktop_environment = false;
  std::string shell = "/bin/bash";
  std::string workspace_directory = "/workspace";
  int64_t default_timeout_s = 120;  // a command's timeout when the call names none
  uint64_t output_limit = 2097152;  // bytes of stdout and stderr together, per command
};

}  // namespace vc::computers
