// cluster_calls.cpp — the URL paths of the objects a computer is made of; the default of
// optional calls. Any thread.
#include "cluster_calls.h"

namespace vc::kubernetes {

std::string collection_path(ObjectKind kind, std::string_view name_space) {
  const std::string in_namespace = "/namespaces/" + std::string(name_space);
  switch (kind) {
    case ObjectKind::pod: return "/api/v1" + in_namespace + "/pods";
    case ObjectKind::persistent_volume_claim:
      return "/api/v1" + in_namespace + "/persistentvolumeclaims";
    case ObjectKind::network_policy:
      return "/apis/networking.k8s.io/v1" + in_namespace + "/networkpolicies";
  }
  return "";
}

std::string object_path(ObjectKind kind, std::string_view name_space, std::string_view name) {
  return collection_path(kind, name_space) + "/" + std::string(name);
}

sdk::Expected<std::unique_ptr<DesktopViewProxy>, DesktopViewProxyError>
ClusterCalls::open_desktop_view(const std::string& pod, std::uint16_t port,
                                DesktopViewProxyOptions, sdk::HostLog) {
  return DesktopViewProxyError{"This connection to the cluster cannot forward port " +
                               std::to_string(port) + " of pod " + pod + "."};
}

}  // namespace vc::kubernetes
