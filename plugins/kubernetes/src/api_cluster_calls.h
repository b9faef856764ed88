// api_cluster_calls.h — ClusterCalls on the real transport: the kubeconfig's endpoint, the API
// thread, REST calls, pod watches and exec streams.
//
// connect_to_cluster() reads the kubeconfig the options name (or finds one: $KUBECONFIG,
// ~/.kube/config, the in-cluster service account), starts the API thread and returns the
// calls; it does not contact the server (validate's first call does).
//
// Thread rule: connect_to_cluster() on a lane thread (it reads files and may run an exec
// credential plugin); the calls as ClusterCalls says.
#pragma once

#include <memory>

#include "api_endpoint.h"
#include "cluster_calls.h"
#include "kubernetes_options.h"

namespace vc::kubernetes {

ConfigExpected<std::unique_ptr<ClusterCalls>> connect_to_cluster(const KubernetesOptions& options);

}  // namespace vc::kubernetes
