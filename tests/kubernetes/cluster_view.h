// cluster_view.h — the Kubernetes suites' outside view of the local cluster: the API read and
// written with curl and the kubeconfig's own credentials, and the pods' containers on the
// node's dockerd (the local cluster's kubelet runs pods there) through the docker CLI. Nothing
// here goes through the plugin under test, so what it sees is independent evidence.
//
// The cluster is the one scripts/engines/kubernetes-up.sh starts; its kubeconfig is
// $VC_TEST_KUBECONFIG (default /var/lib/mcp-virtual-computer-k8s/kubeconfig). When that is
// absent the suites skip, unless $VC_REQUIRE_ENGINES names kubernetes: then they fail.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "json.h"

namespace vc::test {

struct ClusterAccess {
  std::string kubeconfig;  // path
  std::string server;      // https://127.0.0.1:6443
  std::string ca_file;
  std::string token;
};

// The local cluster's access, or nullopt with `why` set when there is none.
std::optional<ClusterAccess> local_cluster(std::string& why);
// True when $VC_REQUIRE_ENGINES names kubernetes (a missing cluster is then a failure).
bool kubernetes_required();

class ClusterView {
 public:
  explicit ClusterView(ClusterAccess access) : access_(std::move(access)) {}
  const ClusterAccess& access() const { return access_; }

  // An API call with curl: the HTTP status and the body as JSON (null when not JSON).
  struct Answer {
    int status = 0;
    Json body;
  };
  Answer call(const std::string& method, const std::string& path, const Json& body = nullptr) const;

  void create_namespace(const std::string& name) const;
  // Deletes it without waiting (the objects in it go with it).
  void delete_namespace(const std::string& name) const;
  // GET of an object in `name_space`: "pods", "persistentvolumeclaims", or
  // "networkpolicies" (networking.k8s.io).
  Answer get(const std::string& name_space, const std::string& resource,
             const std::string& name) const;
  // Deletes a pod behind the plugin's back (grace 0).
  void delete_pod(const std::string& name_space, const std::string& pod) const;

  // The node's docker container id of `container` in `pod`, waiting up to `timeout` for it.
  std::string docker_container(const std::string& name_space, const std::string& pod,
                               const std::string& container,
                               std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  // `docker exec <container> sh -c <script>`: its stdout; the exit code in `exit_code`.
  std::string docker_sh(const std::string& container_id, const std::string& script,
                        int* exit_code = nullptr) const;
  // The container's processes, one `docker top` line each (its command line last).
  std::vector<std::string> processes(const std::string& container_id) const;

 private:
  ClusterAccess access_;
};

}  // namespace vc::test
