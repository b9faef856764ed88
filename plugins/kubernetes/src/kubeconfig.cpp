// kubeconfig.cpp — choosing the kubeconfig, its context, and turning that context's cluster
// and user into an ApiEndpoint, one checked field at a time.
#include "kubeconfig.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "base64.h"
#include "bounded_file.h"
#include "exec_credential.h"
#include "message_text.h"
#include "text_checks.h"

namespace vc::kubernetes {
namespace {

namespace fs = std::filesystem;

// How many names a "which it does not define (it defines: …)" list shows.
constexpr std::size_t kListedNames = 8;

std::optional<std::string> environment_variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// A path a kubeconfig entry names, resolved against the folder of the file it is written in.
std::string resolve_path(const std::string& path, const KubeconfigEntryOrigin& origin) {
  if (path.empty() || fs::path(path).is_absolute() || origin.folder.empty()) return path;
  return (fs::path(origin.folder) / path).lexically_normal().string();
}

template <class Entry>
std::string list_names(const std::vector<Entry>& entries) {
  if (entries.empty()) return "none";
  std::string names;
  for (std::size_t i = 0; i < entries.size() && i < kListedNames; ++i) {
    if (i > 0) names += ", ";
    names += quote_for_message(entries[i].name);
  }
  if (entries.size() > kListedNames) names += ", …";
  return names;
}

// Checks and reads the fields of the chosen context's entries. Each method returns the
// sentence of the first problem it meets.
class EndpointBuilder {
 public:
  EndpointBuilder(const Kubeconfig& kubeconfig, const KubeconfigFileReader& read_file,
                  std::chrono::milliseconds exec_timeout)
      : kubeconfig_(kubeconfig), read_file_(read_file), exec_timeout_(exec_timeout) {}

  ConfigExpected<ApiEndpoint> build(const std::string& requested_context) {
    auto context = choose_context(requested_context);
    if (!context) return context.error();
    const KubeconfigContext& chosen = *context.value();
    ApiEndpoint endpoint;
    endpoint.context_namespace = chosen.context_namespace;
    endpoint.origin = "context " + quote_for_message(chosen.name) + " of the kubeconfig " +
                      printable_for_message(chosen.origin.file);
    auto cluster = find_cluster(chosen);
    if (!cluster) return cluster.error();
    if (auto checked = read_cluster(*cluster.value(), endpoint); !checked) return checked.error();
    if (chosen.user.empty()) {
      endpoint.credentials = std::make_shared<FixedCredentialSource>(
          Credentials{}, "no credentials (" + endpoint.origin + " names no user)");
      return endpoint;
    }
    const KubeconfigUser* user = kubeconfig_.find_user(chosen.user);
    if (user == nullptr) {
      return kubeconfig_field_error(
          chosen.origin.file, chosen.origin.field + ".context.user",
          "names the user " + quote_for_message(chosen.user) +
              ", which is not defined (users: " + list_names(kubeconfig_.users) + ")");
    }
    auto credentials = read_user(*user, *cluster.value(), endpoint);
    if (!credentials) return credentials.error();
    endpoint.credentials = std::move(credentials).value();
    return endpoint;
  }

 private:
  ConfigExpected<const KubeconfigContext*> choose_context(const std::string& requested) {
    const std::string describe = kubeconfig_.describe();
    const std::string& name = requested.empty() ? kubeconfig_.current_context : requested;
    if (name.empty()) {
      if (kubeconfig_.contexts.empty()) {
        return ConfigError{"The " + describe +
                           " defines no context: add one (kubectl "
                           "config set-context) or use another kubeconfig."};
      }
      return ConfigError{"The " + describe +
                         " has no current-context: pass --context "
                         "with one of its contexts (" +
                         list_names(kubeconfig_.contexts) + ")."};
    }
    if (const auto* context = kubeconfig_.find_context(name)) return context;
    if (requested.empty()) {
      return kubeconfig_field_error(
          kubeconfig_.current_context_file, "current-context",
          "names the context " + quote_for_message(name) +
              ", which is not defined (contexts: " + list_names(kubeconfig_.contexts) + ")");
    }
    return ConfigError{"--context names " + quote_for_message(name) + ", which the " + describe +
                       " does not define (its contexts: " + list_names(kubeconfig_.contexts) +
                       ")."};
  }

  ConfigExpected<const KubeconfigCluster*> find_cluster(const KubeconfigContext& context) {
    const std::string field = context.origin.field + ".context.cluster";
    if (context.cluster.empty())
      return kubeconfig_field_error(context.origin.file, field, "is missing");
    if (const auto* cluster = kubeconfig_.find_cluster(context.cluster)) return cluster;
    return kubeconfig_field_error(
        context.origin.file, field,
        "names the cluster " + quote_for_message(context.cluster) +
            ", which is not defined (clusters: " + list_names(kubeconfig_.clusters) + ")");
  }

  ConfigExpected<void> read_cluster(const KubeconfigCluster& cluster, ApiEndpoint& endpoint) {
    const std::string& file = cluster.origin.file;
    const std::string field = cluster.origin.field + ".cluster";
    auto server = check_server(cluster.server);
    if (!server) return kubeconfig_field_error(file, field + ".server", server.error().message);
    endpoint.server = std::move(server).value();
    if (!cluster.proxy_url.empty()) {
      return kubeconfig_field_error(
          file, field + ".proxy-url",
          "is set, and connecting through a proxy is not supported; reach the API server "
          "directly (for example through an SSH tunnel to it) and remove proxy-url");
    }
    endpoint.tls_server_name = cluster.tls_server_name;
    endpoint.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
    const bool has_authority =
        !cluster.certificate_authority_data.empty() || !cluster.certificate_authority.empty();
    if (has_authority && cluster.insecure_skip_tls_verify) {
      return kubeconfig_field_error(
          file, field + ".insecure-skip-tls-verify",
          "is true while a certificate authority is set too; keep one of them");
    }
    auto authority =
        read_pem(cluster.certificate_authority_data, field + ".certificate-authority-data",
                 cluster.certificate_authority, field + ".certificate-authority", cluster.origin);
    if (!authority) return authority.error();
    endpoint.ca_pem = std::move(authority).value();
    return {};
  }

  // The server's URL as the transport takes it: scheme, host[:port] and an optional path, no
  // trailing '/'. A bare host[:port] means https, as client-go reads it.
  static ConfigExpected<std::string> check_server(const std::string& written) {
    const std::string server = trim_whitespace(written);
    if (server.empty()) return ConfigError{"is missing"};
    const auto scheme_end = server.find("://");
    const std::string scheme =
        scheme_end == std::string::npos ? "https" : server.substr(0, scheme_end);
    if (scheme != "https" && scheme != "http") {
      return ConfigError{"is " + quote_for_message(written, 200) +
                         ", which is not an https:// URL"};
    }
    const std::string rest =
        scheme_end == std::string::npos ? server : server.substr(scheme_end + 3);
    const auto authority_end = rest.find('/');
    const std::string authority = rest.substr(0, authority_end);
    std::string path = authority_end == std::string::npos ? "" : rest.substr(authority_end);
    while (!path.empty() && path.back() == '/') path.pop_back();
    const bool bad_character = std::any_of(rest.begin(), rest.end(), [](char c) {
      const auto byte = static_cast<unsigned char>(c);
      return byte <= 0x20 || byte == 0x7f || c == '?' || c == '#';
    });
    if (authority.empty() || bad_character || authority.find('@') != std::string::npos) {
      return ConfigError{"is " + quote_for_message(written, 200) +
                         ", which is not a URL such as https://192.0.2.10:6443"};
    }
    return scheme + "://" + authority + path;
  }

  // PEM from a -data field (base64) or, when that is empty, from the file a field names; ""
  // when neither is set.
  ConfigExpected<std::string> read_pem(const std::string& data, const std::string& data_field,
                                       const std::string& path, const std::string& path_field,
                                       const KubeconfigEntryOrigin& origin) {
    const std::string& file = origin.file;
    if (!data.empty()) {
      auto bytes = decode_base64(data);
      if (!bytes) return kubeconfig_field_error(file, data_field, "is not valid base64");
      if (bytes->size() > kMaxPemBytes) {
        return kubeconfig_field_error(file, data_field, "holds more than 1 MiB");
      }
      if (!looks_like_pem(*bytes)) {
        return kubeconfig_field_error(file, data_field,
                                      "does not hold PEM (no -----BEGIN line once decoded)");
      }
      return std::move(bytes).value();
    }
    if (path.empty()) return std::string();
    const std::string resolved = resolve_path(path, origin);
    auto bytes = read_file_(resolved, kMaxPemBytes);
    if (!bytes) {
      return kubeconfig_field_error(
          file, path_field,
          "names " + printable_for_message(resolved) + ", which " + bytes.error().message);
    }
    if (!looks_like_pem(bytes.value())) {
      return kubeconfig_field_error(file, path_field,
                                    "names " + printable_for_message(resolved) +
                                        ", which does not hold PEM (no -----BEGIN line)");
    }
    return std::move(bytes).value();
  }

  ConfigExpected<std::shared_ptr<CredentialSource>> read_user(const KubeconfigUser& user,
                                                              const KubeconfigCluster& cluster,
                                                              const ApiEndpoint& endpoint) {
    if (auto refused = refuse_unsupported(user); !refused) return refused.error();
    const std::string& file = user.origin.file;
    const std::string field = user.origin.field + ".user";
    const std::string described =
        user.origin.field + " of the kubeconfig " + printable_for_message(file);
    auto certificate =
        read_pem(user.client_certificate_data, field + ".client-certificate-data",
                 user.client_certificate, field + ".client-certificate", user.origin);
    if (!certificate) return certificate.error();
    auto key = read_pem(user.client_key_data, field + ".client-key-data", user.client_key,
                        field + ".client-key", user.origin);
    if (!key) return key.error();
    if (certificate.value().empty() != key.value().empty()) {
      const bool has_certificate = !certificate.value().empty();
      return kubeconfig_field_error(
          file, field,
          has_certificate
              ? "has a client certificate but no client-key or client-key-data"
              : "has a client key but no client-certificate or client-certificate-data");
    }
    if (user.exec) {
      if (!user.token.empty() || !user.token_file.empty() || !certificate.value().empty()) {
        return kubeconfig_field_error(
            file, field,
            "sets exec together with a token or a client certificate; keep one way "
            "to authenticate");
      }
      auto settings = exec_settings(user, cluster, endpoint);
      if (!settings) return settings.error();
      return std::shared_ptr<CredentialSource>(
          std::make_shared<ExecCredentialSource>(std::move(settings).value()));
    }
    if (user.token.empty() && !user.token_file.empty()) {
      const std::string path = resolve_path(user.token_file, user.origin);
      const std::string origin =
          field + ".tokenFile of the kubeconfig " + printable_for_message(file);
      auto bytes = read_file_(path, kMaxTokenBytes);
      auto token = bytes ? token_from_file_bytes(bytes.value()) : bytes;
      if (!token) {
        return kubeconfig_field_error(
            file, field + ".tokenFile",
            "names " + printable_for_message(path) + ", which " + token.error().message);
      }
      TokenFileCredentialSource::Settings settings{path, certificate.value(), key.value(),
                                                   kTokenFileRereadAfter, origin};
      return std::shared_ptr<CredentialSource>(std::make_shared<TokenFileCredentialSource>(
          std::move(settings), std::move(token).value()));
    }
    const bool has_token = !user.token.empty();
    const bool has_certificate = !certificate.value().empty();
    const std::string description =
        has_token && has_certificate ? "the token and client certificate of " + described
        : has_token                  ? "the token of " + described
        : has_certificate            ? "the client certificate of " + described
                                     : "no credentials (" + described + " has none)";
    Credentials fixed{trim_whitespace(user.token), certificate.value(), key.value(), std::nullopt};
    return std::shared_ptr<CredentialSource>(
        std::make_shared<FixedCredentialSource>(std::move(fixed), description));
  }

  ConfigExpected<void> refuse_unsupported(const KubeconfigUser& user) {
    const std::string& file = user.origin.file;
    const std::string field = user.origin.field + ".user";
    if (!user.username.empty() || !user.password.empty()) {
      return kubeconfig_field_error(
          file, field + (user.username.empty() ? ".password" : ".username"),
          "asks for basic authentication (username and password), which Kubernetes removed in "
          "1.19; use a token, a client certificate or an exec plugin");
    }
    if (user.auth_provider) {
      return kubeconfig_field_error(
          file, field + ".auth-provider",
          "names the auth provider " + quote_for_message(*user.auth_provider) +
              ", and auth providers were removed from Kubernetes clients; use the exec "
              "credential plugin that replaces it (gke-gcloud-auth-plugin for gcp, kubelogin "
              "for azure and oidc)");
    }
    if (!user.impersonation_fields.empty()) {
      return kubeconfig_field_error(
          file, field + "." + user.impersonation_fields.front(),
          "asks for impersonation, which this plugin does not support; give the user the "
          "permissions directly or use a kubeconfig without it");
    }
    return {};
  }

  ConfigExpected<ExecPluginSettings> exec_settings(const KubeconfigUser& user,
                                                   const KubeconfigCluster& cluster,
                                                   const ApiEndpoint& endpoint) {
    const KubeconfigExec& exec = *user.exec;
    const std::string& file = user.origin.file;
    const std::string field = user.origin.field + ".user.exec";
    if (exec.api_version != kExecCredentialV1 && exec.api_version != kExecCredentialV1beta1) {
      return kubeconfig_field_error(
          file, field + ".apiVersion",
          exec.api_version.empty()
              ? std::string("is missing; write client.authentication.k8s.io/v1")
              : "is " + quote_for_message(exec.api_version) +
                    ", which is not supported; use client.authentication.k8s.io/v1 or v1beta1");
    }
    if (exec.command.empty()) return kubeconfig_field_error(file, field + ".command", "is missing");
    if (exec.interactive_mode == "Always") {
      return kubeconfig_field_error(
          file, field + ".interactiveMode",
          "is Always, but the server has no terminal to ask on; log in with the plugin "
          "beforehand and set interactiveMode to Never or IfAvailable");
    }
    if (!exec.interactive_mode.empty() && exec.interactive_mode != "Never" &&
        exec.interactive_mode != "IfAvailable") {
      return kubeconfig_field_error(
          file, field + ".interactiveMode",
          "is " + quote_for_message(exec.interactive_mode) + ", not Never, IfAvailable or Always");
    }
    ExecPluginSettings settings;
    // client-go: a command with a '/' is a path, relative to the kubeconfig's folder; a bare
    // name is looked up in PATH.
    settings.command = exec.command.find('/') == std::string::npos
                           ? exec.command
                           : resolve_path(exec.command, user.origin);
    settings.args = exec.args;
    settings.env = exec.env;
    settings.api_version = exec.api_version;
    settings.install_hint = exec.install_hint;
    settings.origin = user.origin.field + " of the kubeconfig " + printable_for_message(file);
    settings.timeout = exec_timeout_;
    if (exec.provide_cluster_info) {
      settings.cluster = exec_cluster_json(ExecClusterInfo{
          endpoint.server, cluster.tls_server_name, cluster.insecure_skip_tls_verify,
          endpoint.ca_pem, cluster.disable_compression, cluster.exec_extension});
    }
    return settings;
  }

  const Kubeconfig& kubeconfig_;
  const KubeconfigFileReader& read_file_;
  std::chrono::milliseconds exec_timeout_;
};

// --- where the kubeconfig comes from ------------------------------------------------------------

bool file_exists(const std::string& path) {
  std::error_code error;
  return !path.empty() && fs::exists(path, error);
}

ConfigExpected<Kubeconfig> read_kubeconfig_file(const std::string& path) {
  auto text = read_bounded_file(path, kMaxKubeconfigBytes);
  if (!text) {
    return ConfigError{"The kubeconfig " + printable_for_message(path) + " " +
                       text.error().message + "."};
  }
  return parse_kubeconfig(text.value(), path);
}

ConfigExpected<Kubeconfig> read_kubeconfig_list(const std::string& list) {
  std::vector<Kubeconfig> files;
  std::vector<std::string> named;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    const std::string path = list.substr(start, end - start);
    start = end + 1;
    if (path.empty()) continue;
    named.push_back(path);
    if (!file_exists(path)) continue;
    auto file = read_kubeconfig_file(path);
    if (!file) return file.error();
    files.push_back(std::move(file).value());
  }
  if (files.empty()) {
    std::string names;
    for (std::size_t i = 0; i < named.size() && i < kListedNames; ++i) {
      names += (i > 0 ? ", " : "") + printable_for_message(named[i]);
    }
    return ConfigError{"KUBECONFIG names " + (names.empty() ? std::string("no file") : names) +
                       ", and none of them exists; fix KUBECONFIG or pass --kubeconfig."};
  }
  return merge_kubeconfigs(std::move(files));
}

std::string service_account_file(const KubeconfigEnvironment& environment, const char* name) {
  return (fs::path(environment.service_account_folder) / name).string();
}

ConfigExpected<ApiEndpoint> in_cluster_endpoint(const KubeconfigEnvironment& environment) {
  const std::string& host = *environment.service_host;
  const std::string& port = *environment.service_port;
  const std::string origin = "the service account of this pod (" +
                             printable_for_message(environment.service_account_folder) + ")";
  const bool port_is_number = !port.empty() && port.size() <= 5 &&
                              port.find_first_not_of("0123456789") == std::string::npos;
  if (host.find_first_of("/ @") != std::string::npos || !port_is_number) {
    return ConfigError{"KUBERNETES_SERVICE_HOST " + quote_for_message(host) +
                       " and KUBERNETES_SERVICE_PORT " + quote_for_message(port) +
                       " do not make an API server address."};
  }
  ApiEndpoint endpoint;
  endpoint.server =
      "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  endpoint.origin = origin;
  const std::string token_path = service_account_file(environment, "token");
  const std::string token_origin = "the pod's service account";
  auto token = TokenFileCredentialSource::read_token(token_path, token_origin);
  if (!token) return token.error();
  const std::string ca_path = service_account_file(environment, "ca.crt");
  if (file_exists(ca_path)) {
    auto ca = read_bounded_file(ca_path, kMaxPemBytes);
    if (!ca) {
      return ConfigError{"The service account's certificate authority " +
                         printable_for_message(ca_path) + " " + ca.error().message + "."};
    }
    endpoint.ca_pem = std::move(ca).value();
  }
  const std::string namespace_path = service_account_file(environment, "namespace");
  if (file_exists(namespace_path)) {
    auto name = read_bounded_file(namespace_path, 1024);
    if (name) endpoint.context_namespace = trim_whitespace(name.value());
  }
  endpoint.credentials = std::make_shared<TokenFileCredentialSource>(
      TokenFileCredentialSource::Settings{token_path, "", "", kTokenFileRereadAfter, token_origin},
      std::move(token).value());
  return endpoint;
}

ConfigExpected<ApiEndpoint> endpoint_from_file(ConfigExpected<Kubeconfig> kubeconfig,
                                               const KubeconfigRequest& request) {
  if (!kubeconfig) return kubeconfig.error();
  return endpoint_from_kubeconfig(kubeconfig.value(), request.context, read_bounded_file,
                                  request.exec_timeout);
}

}  // namespace

KubeconfigEnvironment KubeconfigEnvironment::of_this_process() {
  KubeconfigEnvironment environment;
  environment.kubeconfig = environment_variable("KUBECONFIG");
  environment.home = environment_variable("HOME");
  environment.service_host = environment_variable("KUBERNETES_SERVICE_HOST");
  environment.service_port = environment_variable("KUBERNETES_SERVICE_PORT");
  return environment;
}

ConfigExpected<ApiEndpoint> endpoint_from_kubeconfig(const Kubeconfig& kubeconfig,
                                                     const std::string& context,
                                                     const KubeconfigFileReader& read_file,
                                                     std::chrono::milliseconds exec_timeout) {
  return EndpointBuilder(kubeconfig, read_file, exec_timeout).build(context);
}

ConfigExpected<ApiEndpoint> load_api_endpoint(const KubeconfigRequest& request) {
  const KubeconfigEnvironment& environment = request.environment;
  if (!request.kubeconfig_path.empty()) {
    return endpoint_from_file(read_kubeconfig_file(request.kubeconfig_path), request);
  }
  if (environment.kubeconfig && !environment.kubeconfig->empty()) {
    return endpoint_from_file(read_kubeconfig_list(*environment.kubeconfig), request);
  }
  std::string home_config;
  if (environment.home && !environment.home->empty()) {
    home_config = (fs::path(*environment.home) / ".kube" / "config").string();
    if (file_exists(home_config))
      return endpoint_from_file(read_kubeconfig_file(home_config), request);
  }
  const bool in_pod = environment.service_host && !environment.service_host->empty() &&
                      environment.service_port && !environment.service_port->empty();
  if (in_pod && request.context.empty()) return in_cluster_endpoint(environment);
  const std::string home_clause = home_config.empty()
                                      ? std::string("HOME is not set")
                                      : printable_for_message(home_config) + " does not exist";
  if (in_pod) {
    return ConfigError{"--context names " + quote_for_message(request.context) +
                       ", but there is no kubeconfig to find it in (--kubeconfig and KUBECONFIG "
                       "are not set and " +
                       home_clause +
                       "); pass --kubeconfig, or leave "
                       "--context out to use this pod's service account."};
  }
  return ConfigError{"No kubeconfig was found: --kubeconfig and KUBECONFIG are not set, " +
                     home_clause +
                     ", and KUBERNETES_SERVICE_HOST is not set (the server is "
                     "not in a pod); pass --kubeconfig with the file kubectl uses."};
}

}  // namespace vc::kubernetes
