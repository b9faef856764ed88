// plugin_capabilities.cpp — see plugin_capabilities.h.
#include "plugin_loader/plugin_capabilities.h"

namespace vc::plugins {

namespace {

struct CapabilityName {
  vc_caps bit;
  const char* name;
};

constexpr CapabilityName kCapabilityNames[] = {
    {VC_CAP_ISOLATED, "isolated"},
    {VC_CAP_PERSISTENT, "persistent"},
    {VC_CAP_RESTART, "restart"},
    {VC_CAP_FACTORY_RESET, "factory-reset"},
    {VC_CAP_NETWORK_ACCESS, "network-access"},
    {VC_CAP_DESKTOP, "desktop"},
    {VC_CAP_EXEC_STDIN, "exec-stdin"},
    {VC_CAP_WAIT_FOR_DEATH, "wait-for-death"},
    {VC_CAP_KILLS_PROCESS_TREE, "kills-process-tree"},
    {VC_CAP_IMAGES, "images"},
};

}  // namespace

std::vector<std::string> capability_names(vc_caps caps) {
  std::vector<std::string> names;
  for (const CapabilityName& capability : kCapabilityNames) {
    if ((caps & capability.bit) != 0) names.emplace_back(capability.name);
  }
  return names;
}

}  // namespace vc::plugins
