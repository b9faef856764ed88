// exec_credential.h — the JSON an exec credential plugin is given and answers with
// (client.authentication.k8s.io ExecCredential, API versions v1 and v1beta1).
//
// The plugin gets KUBERNETES_EXEC_INFO = {"apiVersion":…,"kind":"ExecCredential","spec":{
// "interactive":false[,"cluster":{…}]}} (never interactive: the server has no terminal) and
// prints {"apiVersion":…,"kind":"ExecCredential","status":{"token":…} or
// {"clientCertificateData":…,"clientKeyData":…}[,"expirationTimestamp":"<RFC 3339>"]}.
//
// Pure functions (the fuzz harness and the unit tests feed them text). Any thread.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api_endpoint.h"

namespace vc::kubernetes {

inline constexpr const char* kExecCredentialV1 = "client.authentication.k8s.io/v1";
inline constexpr const char* kExecCredentialV1beta1 = "client.authentication.k8s.io/v1beta1";

// The value of KUBERNETES_EXEC_INFO. `cluster` is spec.cluster (provideClusterInfo), or null.
std::string exec_credential_request(const std::string& api_version, const nlohmann::json* cluster);

// spec.cluster as client-go builds it from a kubeconfig cluster: server, tls-server-name,
// insecure-skip-tls-verify, certificate-authority-data (base64 of `ca_pem`), proxy-url,
// disable-compression and config (the cluster's exec extension), the empty ones left out.
struct ExecClusterInfo {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string ca_pem;
  bool disable_compression = false;
  std::optional<nlohmann::json> config;
};
nlohmann::json exec_cluster_json(const ExecClusterInfo& cluster);

// The credentials in a plugin's output (expires_at from status.expirationTimestamp). The
// error's message is a clause to follow "printed": "nothing on its standard output",
// "an ExecCredential without a status", "something other than a JSON object: \"…\"".
ConfigExpected<Credentials> parse_exec_credential(std::string_view output,
                                                  const std::string& api_version);

// An RFC 3339 time ("2025-01-02T03:04:05Z", "…05.123+02:00"), or nullopt when it is not one.
// Times before 1970 read as 1970 and times after 2200 as 2200 (system_clock ends in 2262).
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

}  // namespace vc::kubernetes
