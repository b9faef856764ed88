// kubeconfig_document.h — a kubeconfig file's text as values: its clusters, users, contexts and
// current-context, each entry remembering the file it came from and its place in it, so that a
// later error names both ("users[1] (name \"dev\").user.client-key-data").
//
// parse_kubeconfig() checks the document's shape only: lists are lists, strings are strings,
// every entry has a name and no name repeats within its list (client-go refuses that too).
// What a field means (base64, files, the forms this plugin refuses) is checked by kubeconfig.h
// for the entries the chosen context uses, so that an entry nobody uses cannot stop the plugin.
// Unknown fields are ignored, as client-go ignores them.
//
// merge_kubeconfigs() joins files the way client-go joins a $KUBECONFIG list: the first file
// that defines a name (cluster, user or context) wins it, and the first non-empty
// current-context wins; each entry keeps its own folder for its relative paths.
//
// Pure: no file system, so the fuzz harness feeds it any bytes. Any thread.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api_endpoint.h"
#include "message_text.h"

namespace vc::kubernetes {

// A larger kubeconfig is refused before it is parsed (real ones are a few KiB; a big one is a
// wrong file or an attack on the parser).
inline constexpr std::size_t kMaxKubeconfigBytes = 4 * 1024 * 1024;

// Where an entry was written: for its messages and its relative paths.
struct KubeconfigEntryOrigin {
  std::string file;    // as the user named it: "/root/.kube/config"
  std::string folder;  // relative paths of the entry are resolved against it; "" keeps them
  std::string field;   // `clusters[0] (name "kind-dev")`
};

struct KubeconfigCluster {
  std::string name;
  KubeconfigEntryOrigin origin;
  std::string server;
  std::string certificate_authority;       // a file, as written
  std::string certificate_authority_data;  // base64, as written
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
  bool disable_compression = false;
  // extensions[name client.authentication.k8s.io/exec].extension: handed to an exec plugin as
  // spec.cluster.config when it asks for the cluster's details.
  std::optional<nlohmann::json> exec_extension;
};

struct KubeconfigExec {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode;  // "" when not written
};

struct KubeconfigUser {
  std::string name;
  KubeconfigEntryOrigin origin;
  std::string client_certificate;       // a file
  std::string client_certificate_data;  // base64
  std::string client_key;               // a file
  std::string client_key_data;          // base64
  std::string token;
  std::string token_file;
  std::string username;
  std::string password;
  // The impersonation fields written with a value (as, as-uid, as-groups, as-user-extra).
  std::vector<std::string> impersonation_fields;
  // auth-provider: its name ("" when it has none), absent when the field is not written.
  std::optional<std::string> auth_provider;
  std::optional<KubeconfigExec> exec;
};

struct KubeconfigContext {
  std::string name;
  KubeconfigEntryOrigin origin;
  std::string cluster;
  std::string user;
  std::string context_namespace;
};

struct Kubeconfig {
  std::vector<std::string> files;  // every file it was read from, in order
  std::string current_context;
  std::string current_context_file;  // the file whose current-context that is
  std::vector<KubeconfigCluster> clusters;
  std::vector<KubeconfigUser> users;
  std::vector<KubeconfigContext> contexts;

  const KubeconfigCluster* find_cluster(std::string_view name) const;
  const KubeconfigUser* find_user(std::string_view name) const;
  const KubeconfigContext* find_context(std::string_view name) const;
  // "kubeconfig /a" or "kubeconfig files /a and /b", for messages.
  std::string describe() const;
};

// Parses one kubeconfig. `display_name` is how messages name it (its path when read from a
// file); its folder is where relative paths of its entries are resolved. Malformed YAML is
// refused with the file, line and column; a bad shape with the field's path.
ConfigExpected<Kubeconfig> parse_kubeconfig(std::string_view text, const std::string& display_name);

// Joins parsed files by client-go's rules (see the top of this file). `files` in the order
// $KUBECONFIG lists them.
Kubeconfig merge_kubeconfigs(std::vector<Kubeconfig> files);

// "The kubeconfig <file>: <field> <problem>." The problem starts lower-case, without the stop.
ConfigError kubeconfig_field_error(const std::string& file, const std::string& field,
                                   const std::string& problem);

}  // namespace vc::kubernetes
