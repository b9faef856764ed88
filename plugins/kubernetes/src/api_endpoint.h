// api_endpoint.h — where one Kubernetes API server is and how the plugin proves who it is there.
//
// kubeconfig.h makes an ApiEndpoint from a kubeconfig file (or the in-cluster service account);
// the transport (api_client.h) connects with it. Kept apart so that neither depends on the
// other's internals.
//
// Thread rule: ApiEndpoint is a plain value, copied freely. A CredentialSource may be called
// from any thread (implementations lock); current() may block while it refreshes (an exec
// credential plugin runs with a deadline), so callers on an event loop call it only when the
// cached credentials are stale (Credentials::expires_at) or after a 401 (invalidate()).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <vc-backend-1/cpp/expected.h>

namespace vc::kubernetes {

// A failure as a sentence a user can act on ("The kubeconfig /root/.kube/config: users[0].user:
// client-key-data is not base64.").
struct ConfigError {
  std::string message;
};

template <class T>
using ConfigExpected = sdk::Expected<T, ConfigError>;

// What goes with each request: a bearer token and/or a client certificate. Empty fields are
// absent. expires_at, when set, is when the source must be asked again.
struct Credentials {
  std::string bearer_token;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expires_at;
};

// Where credentials come from: fixed (kubeconfig data), a token file read again as it rotates,
// or an exec credential plugin (users[].user.exec) run again when its answer expires.
class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // The credentials to use now, refreshed when stale. Any thread; may block (see above).
  virtual ConfigExpected<Credentials> current() = 0;
  // The server refused what current() gave (401): the next current() refreshes. Any thread.
  virtual void invalidate() = 0;
  // For messages: "a token from /var/run/secrets/.../token", "the exec plugin aws-iam-authenticator".
  virtual std::string describe() const = 0;
};

struct ApiEndpoint {
  // "https://127.0.0.1:6443", possibly with a path prefix ("https://host/k8s/clusters/c-1").
  std::string server;
  // The name the server's certificate is checked against and sent as SNI, when not the
  // server's host (kubeconfig clusters[].cluster.tls-server-name).
  std::string tls_server_name;
  // PEM of the certificate authorities to trust; empty means the system's trust store.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  // Never null: a source that gives empty Credentials when the kubeconfig names none.
  std::shared_ptr<CredentialSource> credentials;
  // The namespace the kubeconfig's context names, empty when none.
  std::string context_namespace;
  // For messages: "context kind-dev of the kubeconfig /root/.kube/config".
  std::string origin;
};

}  // namespace vc::kubernetes
