// kubeconfig.h — finding the cluster: the ApiEndpoint the plugin connects with, from a
// kubeconfig or from the service account of the pod the server runs in.
//
// Where it looks, first found wins:
//   1. --kubeconfig <file> (KubeconfigRequest::kubeconfig_path): that file, which must exist;
//   2. $KUBECONFIG: a colon-separated list of files; those that exist are merged by client-go's
//      rules (kubeconfig_document.h: the first file to define a name wins it), the missing ones
//      skipped as kubectl skips them; when none exists, that is an error;
//   3. $HOME/.kube/config, when it exists;
//   4. in a pod: KUBERNETES_SERVICE_HOST/PORT and the service account's token, ca.crt and
//      namespace (the token file is read again as the kubelet rotates it).
// The context is --context, else the kubeconfig's current-context.
//
// What the chosen context uses is checked here, each problem refused with one sentence that
// names the file and the field ("The kubeconfig /root/.kube/config: users[1] (name \"dev\")
// .user.client-key-data is not valid base64."):
//   clusters[].cluster  server (https://, or http:// and host:port read as https://),
//                       certificate-authority (a file, relative to the kubeconfig's folder) or
//                       certificate-authority-data, insecure-skip-tls-verify, tls-server-name;
//                       proxy-url is refused (not supported).
//   users[].user        client-certificate(-data) with client-key(-data), token, tokenFile,
//                       exec (client.authentication.k8s.io/v1 and v1beta1; interactiveMode
//                       Never or IfAvailable, as the server has no terminal; a missing
//                       interactiveMode reads as IfAvailable); refused: username/password
//                       (basic authentication left Kubernetes in 1.19), auth-provider (removed
//                       from client-go; exec plugins replace it), impersonation (as, as-groups…).
//   contexts[].context  cluster, user (may be absent: no credentials), namespace.
// When both a field and its -data form are set, the -data form wins (client-go's rule); when
// both token and tokenFile are set, token wins (the kubeconfig format's documented rule).
// Sizes are bounded: a kubeconfig over 4 MiB, a PEM or token file over 1 MiB is refused.
//
// Nothing is run at load: an exec plugin runs at the first credentials->current().
//
// Thread rule: blocking file reads; any thread. The ApiEndpoint it returns follows
// api_endpoint.h's rule.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "api_endpoint.h"
#include "credential_sources.h"
#include "kubeconfig_document.h"

namespace vc::kubernetes {

inline constexpr const char* kServiceAccountFolder =
    "/var/run/secrets/kubernetes.io/serviceaccount";

// What the loader reads from the environment, injected so that tests choose it.
struct KubeconfigEnvironment {
  std::optional<std::string> kubeconfig;    // $KUBECONFIG; nullopt when unset
  std::optional<std::string> home;          // $HOME
  std::optional<std::string> service_host;  // $KUBERNETES_SERVICE_HOST
  std::optional<std::string> service_port;  // $KUBERNETES_SERVICE_PORT
  // Holds token, ca.crt and namespace in a pod.
  std::string service_account_folder = kServiceAccountFolder;

  // This process's environment variables and the real service account folder.
  static KubeconfigEnvironment of_this_process();
};

struct KubeconfigRequest {
  std::string kubeconfig_path;  // --kubeconfig; empty when not given
  std::string context;          // --context; empty: the kubeconfig's current-context
  KubeconfigEnvironment environment;
  // How long an exec credential plugin may run.
  std::chrono::milliseconds exec_timeout = kDefaultExecTimeout;
};

// The endpoint to connect with, or the sentence that says why there is none.
ConfigExpected<ApiEndpoint> load_api_endpoint(const KubeconfigRequest& request);

// Reads a file a kubeconfig names, for endpoint_from_kubeconfig(). Its error's message is a
// predicate, as read_bounded_file's (bounded_file.h): "does not exist".
using KubeconfigFileReader =
    std::function<ConfigExpected<std::string>(const std::string& path, std::size_t max_bytes)>;

// The endpoint of one context of a parsed kubeconfig (`context` empty: its current-context).
// Files it names (certificate authority, client certificate and key, token file) are read
// through `read_file`, so that the fuzz harness needs no file system; load_api_endpoint()
// passes read_bounded_file.
ConfigExpected<ApiEndpoint> endpoint_from_kubeconfig(
    const Kubeconfig& kubeconfig, const std::string& context, const KubeconfigFileReader& read_file,
    std::chrono::milliseconds exec_timeout = kDefaultExecTimeout);

}  // namespace vc::kubernetes
