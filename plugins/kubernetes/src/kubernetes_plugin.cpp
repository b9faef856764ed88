// kubernetes_plugin.cpp — vc-backend-kubernetes.so: the module's one exported symbol, its
// descriptor and its command-line options.
//
// Everything here is static data, valid while the module is loaded. The backend is
// KubernetesBackend, connected to the cluster by api_cluster_calls on first use.
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/plugin_entry.h>

#include "api_cluster_calls.h"
#include "kubernetes_backend.h"
#include "kubernetes_options.h"

#ifndef VC_KUBERNETES_PLUGIN_VERSION
#define VC_KUBERNETES_PLUGIN_VERSION "0.1.0"
#endif

namespace {

// [host loop] No I/O: the kubeconfig is read, and the cluster first contacted, by validate.
vc_status open_kubernetes_backend(const vc_host_services* host, std::string_view config_json,
                                  vc_backend** out_backend, std::string& error) {
  return vc::kubernetes::KubernetesBackend::open(host, config_json,
                                                 &vc::kubernetes::connect_to_cluster,
                                                 out_backend, error);
}

constexpr vc::sdk::PluginInfo kPlugin = {
    .id = "org.mcp-virtual-computer.kubernetes",
    .name = "kubernetes",
    .version = VC_KUBERNETES_PLUGIN_VERSION,
    .vendor = "mcp-virtual-computer",
    .description = "Persistent computers as pods on a Kubernetes cluster (a claim keeps "
                   "/workspace and home)",
    .capabilities = VC_CAP_ISOLATED | VC_CAP_PERSISTENT | VC_CAP_RESTART |
                    VC_CAP_FACTORY_RESET | VC_CAP_NETWORK_ACCESS | VC_CAP_EXEC_STDIN |
                    VC_CAP_WAIT_FOR_DEATH | VC_CAP_KILLS_PROCESS_TREE | VC_CAP_DESKTOP,
    .options = vc::kubernetes::kKubernetesOptionDecls.data(),
    .min_host_abi_minor = 1,
};

}  // namespace

VC_SDK_EXPORT_PLUGIN(kPlugin, open_kubernetes_backend)
