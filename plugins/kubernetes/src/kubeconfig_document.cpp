// kubeconfig_document.cpp — reading a kubeconfig's YAML (yaml-cpp) into its entries.
//
// A bad shape is reported by throwing ShapeError deep in the reading functions and catching it
// once in parse_kubeconfig(): the document is a tree of a few dozen fields, and passing an
// Expected back through every one of them would bury what is read under what is forwarded.
// yaml-cpp throws too (malformed text, a scalar subscripted); both end in one ConfigError.
#include "kubeconfig_document.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "message_text.h"

namespace vc::kubernetes {
namespace {

// Deeper YAML in an exec extension than this is refused: real ones are a handful of levels,
// and the conversion to JSON recurses.
constexpr int kMaxExtensionDepth = 32;
constexpr std::size_t kMaxExtensionValues = 10'000;
constexpr const char* kExecExtensionName = "client.authentication.k8s.io/exec";
// Units of reading work one kubeconfig may take (see YamlFields). A user, cluster or context
// spends some tens (a hundred with a 4 KiB certificate), so a kubeconfig of thousands of
// entries stays far below; an alias repeated to make work runs out of it in well under a
// second of an optimised build.
constexpr std::size_t kWorkBudget = 1'000'000;

struct ShapeError {
  std::string field;
  std::string problem;
};

// What messages call a file: its name as given, escaped and cut when it is not plain.
std::string bounded_file_name(const std::string& file) { return printable_for_message(file); }

// `field.key`, or `key` at the top level (field empty).
std::string subfield(const std::string& field, const char* key) {
  return field.empty() ? std::string(key) : field + "." + key;
}

bool is_absent(const YAML::Node& node) { return !node.IsDefined() || node.IsNull(); }

// A plain YAML scalar as JSON: null, a boolean or a number when it reads as one, as YAML 1.1
// would type it; otherwise (and when quoted) a string.
nlohmann::json scalar_to_json(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "?") return text;  // quoted or explicitly tagged: a string
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  bool flag = false;
  if (YAML::convert<bool>::decode(node, flag)) return flag;
  std::int64_t integer = 0;
  if (YAML::convert<std::int64_t>::decode(node, integer)) return integer;
  double number = 0;
  if (YAML::convert<double>::decode(node, number) && std::isfinite(number)) return number;
  return text;
}

// Reads typed fields out of yaml-cpp nodes, counting the work. YAML aliases let a small text
// name one big list, map or string many times over (every user's args can be *the same*
// million-item list), and yaml-cpp looks a key up by walking the map: without a bound, a
// kubeconfig of a few KiB could keep the reader busy for hours. Every lookup (as many units as
// the map has keys), value and 64 bytes copied spend from a budget far above what any real
// kubeconfig needs.
class YamlFields {
 public:
  // The value of `key` in `map`, or an undefined node when absent. yaml-cpp throws when a
  // scalar is subscripted, and a sequence has no keys: both read as absent here.
  YAML::Node child(const YAML::Node& map, const char* key, const std::string& field) {
    if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    spend(1 + map.size(), [&] { return field; });
    return map[key];
  }

  std::string read_string(const YAML::Node& map, const char* key, const std::string& field) {
    const YAML::Node node = child(map, key, field);
    if (is_absent(node)) return std::string();
    if (!node.IsScalar()) throw ShapeError{subfield(field, key), "is not a string"};
    spend(1 + node.Scalar().size() / 64, [&] { return subfield(field, key); });
    return node.Scalar();
  }

  bool read_bool(const YAML::Node& map, const char* key, const std::string& field) {
    const YAML::Node node = child(map, key, field);
    if (is_absent(node)) return false;
    bool value = false;
    spend(1 + (node.IsScalar() ? node.Scalar().size() / 64 : 0),
          [&] { return subfield(field, key); });
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      throw ShapeError{subfield(field, key), "is not true or false"};
    }
    return value;
  }

  std::vector<std::string> read_string_list(const YAML::Node& map, const char* key,
                                            const std::string& field) {
    const YAML::Node node = child(map, key, field);
    std::vector<std::string> values;
    if (is_absent(node)) return values;
    if (!node.IsSequence()) throw ShapeError{subfield(field, key), "is not a list"};
    for (std::size_t i = 0; i < node.size(); ++i) {
      const auto item_field = [&] { return subfield(field, key) + "[" + std::to_string(i) + "]"; };
      const YAML::Node item = node[i];
      if (!item.IsScalar()) throw ShapeError{item_field(), "is not a string"};
      spend(1 + item.Scalar().size() / 64, item_field);
      values.push_back(item.Scalar());
    }
    return values;
  }

  // A mapping field, or an undefined node when absent; anything else is a shape error.
  YAML::Node read_map(const YAML::Node& map, const char* key, const std::string& field) {
    const YAML::Node node = child(map, key, field);
    if (is_absent(node)) return YAML::Node(YAML::NodeType::Undefined);
    if (!node.IsMap()) throw ShapeError{subfield(field, key), "is not a mapping"};
    return node;
  }

  // Any YAML value as JSON (an exec extension, handed to the plugin as it is).
  nlohmann::json to_json(const YAML::Node& node, const std::string& field, int depth) {
    if (depth > kMaxExtensionDepth) throw ShapeError{field, "is nested too deeply"};
    if (++json_values_ > kMaxExtensionValues) {
      throw ShapeError{field, "holds more than 10000 values, more than an exec plugin is handed"};
    }
    spend(1, [&] { return field; });
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        spend(node.Scalar().size() / 64, [&] { return field; });
        return scalar_to_json(node);
      case YAML::NodeType::Sequence: {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& item : node) list.push_back(to_json(item, field, depth + 1));
        return list;
      }
      case YAML::NodeType::Map: {
        nlohmann::json object = nlohmann::json::object();
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) throw ShapeError{field, "has a key that is not a string"};
          object[entry.first.Scalar()] = to_json(entry.second, field, depth + 1);
        }
        return object;
      }
      default:
        return nullptr;
    }
  }

  // Counts `units` of work against the budget; past it, the field being read is named
  // (`field_name()` makes its path, only then: most reads never need it).
  template <class FieldName>
  void spend(std::size_t units, FieldName field_name) {
    spent_ += units;
    if (spent_ > kWorkBudget) {
      throw ShapeError{field_name(),
                       "is past the most this plugin reads in one kubeconfig (a "
                       "million values, counting each repetition of a YAML alias)"};
    }
  }

 private:
  std::size_t spent_ = 0;
  std::size_t json_values_ = 0;
};

std::string entry_field(const char* list, std::size_t index, const std::string& name) {
  std::string field = std::string(list) + "[" + std::to_string(index) + "]";
  if (!name.empty()) field += " (name " + quote_for_message(name) + ")";
  return field;
}

class DocumentReader {
 public:
  explicit DocumentReader(const std::string& display_name)
      : file_(display_name), folder_(std::filesystem::path(display_name).parent_path().string()) {}

  Kubeconfig read(const YAML::Node& root) {
    Kubeconfig config;
    config.files.push_back(file_);
    if (is_absent(root)) return config;  // an empty file: a kubeconfig with nothing in it
    if (!root.IsMap()) throw ShapeError{"its top level", "is not a mapping"};
    const std::string kind = yaml_.read_string(root, "kind", "");
    if (!kind.empty() && kind != "Config") {
      throw ShapeError{"kind",
                       "is " + quote_for_message(kind) + ", not Config (is this a kubeconfig?)"};
    }
    config.current_context = yaml_.read_string(root, "current-context", "");
    if (!config.current_context.empty()) config.current_context_file = file_;
    for_each_entry(
        root, "clusters", "cluster",
        [&](const YAML::Node& body, KubeconfigEntryOrigin origin, std::string name) {
          config.clusters.push_back(read_cluster(body, std::move(origin), std::move(name)));
        });
    for_each_entry(root, "users", "user",
                   [&](const YAML::Node& body, KubeconfigEntryOrigin origin, std::string name) {
                     config.users.push_back(read_user(body, std::move(origin), std::move(name)));
                   });
    for_each_entry(
        root, "contexts", "context",
        [&](const YAML::Node& body, KubeconfigEntryOrigin origin, std::string name) {
          config.contexts.push_back(read_context(body, std::move(origin), std::move(name)));
        });
    return config;
  }

 private:
  // Calls `read_entry(body, origin, name)` for each {name, <body_key>} of the list `list`.
  template <class ReadEntry>
  void for_each_entry(const YAML::Node& root, const char* list, const char* body_key,
                      ReadEntry read_entry) {
    const YAML::Node entries = yaml_.child(root, list, "");
    if (is_absent(entries)) return;
    if (!entries.IsSequence()) throw ShapeError{list, "is not a list"};
    std::map<std::string, std::string> first_field_of_name;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const YAML::Node entry = entries[i];
      const std::string index_field = entry_field(list, i, "");
      yaml_.spend(1, [&] { return index_field; });
      if (!entry.IsMap()) throw ShapeError{index_field, "is not a mapping"};
      std::string name = yaml_.read_string(entry, "name", index_field);
      if (name.empty()) throw ShapeError{index_field + ".name", "is missing"};
      KubeconfigEntryOrigin origin{file_, folder_, entry_field(list, i, name)};
      auto [first, inserted] = first_field_of_name.emplace(name, origin.field);
      if (!inserted) throw ShapeError{origin.field, "repeats the name of " + first->second};
      const YAML::Node body = yaml_.read_map(entry, body_key, origin.field);
      read_entry(body, std::move(origin), std::move(name));
    }
  }

  KubeconfigCluster read_cluster(const YAML::Node& body, KubeconfigEntryOrigin origin,
                                 std::string name) {
    const std::string field = origin.field + ".cluster";
    KubeconfigCluster cluster;
    cluster.name = std::move(name);
    cluster.server = yaml_.read_string(body, "server", field);
    cluster.certificate_authority = yaml_.read_string(body, "certificate-authority", field);
    cluster.certificate_authority_data =
        yaml_.read_string(body, "certificate-authority-data", field);
    cluster.insecure_skip_tls_verify = yaml_.read_bool(body, "insecure-skip-tls-verify", field);
    cluster.tls_server_name = yaml_.read_string(body, "tls-server-name", field);
    cluster.proxy_url = yaml_.read_string(body, "proxy-url", field);
    cluster.disable_compression = yaml_.read_bool(body, "disable-compression", field);
    cluster.exec_extension = read_exec_extension(body, field);
    cluster.origin = std::move(origin);
    return cluster;
  }

  // extensions: [{name: client.authentication.k8s.io/exec, extension: {...}}]; other
  // extensions are for other programs and are not looked at.
  std::optional<nlohmann::json> read_exec_extension(const YAML::Node& body,
                                                    const std::string& field) {
    const YAML::Node extensions = yaml_.child(body, "extensions", field);
    if (is_absent(extensions)) return std::nullopt;
    if (!extensions.IsSequence()) throw ShapeError{field + ".extensions", "is not a list"};
    for (std::size_t i = 0; i < extensions.size(); ++i) {
      const YAML::Node extension = extensions[i];
      yaml_.spend(1, [&] { return field + ".extensions"; });
      if (!extension.IsMap()) continue;
      const YAML::Node name = yaml_.child(extension, "name", field);
      if (!name.IsScalar() || name.Scalar() != kExecExtensionName) continue;
      const YAML::Node value = yaml_.child(extension, "extension", field);
      if (is_absent(value)) return nlohmann::json::object();
      return yaml_.to_json(value, field + ".extensions[" + std::to_string(i) + "].extension", 0);
    }
    return std::nullopt;
  }

  KubeconfigUser read_user(const YAML::Node& body, KubeconfigEntryOrigin origin, std::string name) {
    const std::string field = origin.field + ".user";
    KubeconfigUser user;
    user.name = std::move(name);
    user.client_certificate = yaml_.read_string(body, "client-certificate", field);
    user.client_certificate_data = yaml_.read_string(body, "client-certificate-data", field);
    user.client_key = yaml_.read_string(body, "client-key", field);
    user.client_key_data = yaml_.read_string(body, "client-key-data", field);
    user.token = yaml_.read_string(body, "token", field);
    user.token_file = yaml_.read_string(body, "tokenFile", field);
    user.username = yaml_.read_string(body, "username", field);
    user.password = yaml_.read_string(body, "password", field);
    for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
      const YAML::Node value = yaml_.child(body, key, field);
      // begin() == end() rather than size(): yaml-cpp counts a map's size by walking it.
      const bool empty = is_absent(value) || (value.IsScalar() && value.Scalar().empty()) ||
                         ((value.IsSequence() || value.IsMap()) && value.begin() == value.end());
      if (!empty) user.impersonation_fields.emplace_back(key);
    }
    const YAML::Node auth_provider = yaml_.read_map(body, "auth-provider", field);
    if (auth_provider.IsDefined()) {
      user.auth_provider = yaml_.read_string(auth_provider, "name", field + ".auth-provider");
    }
    const YAML::Node exec = yaml_.read_map(body, "exec", field);
    if (exec.IsDefined()) user.exec = read_exec(exec, field + ".exec");
    user.origin = std::move(origin);
    return user;
  }

  KubeconfigExec read_exec(const YAML::Node& body, const std::string& field) {
    KubeconfigExec exec;
    exec.api_version = yaml_.read_string(body, "apiVersion", field);
    exec.command = yaml_.read_string(body, "command", field);
    exec.args = yaml_.read_string_list(body, "args", field);
    exec.install_hint = yaml_.read_string(body, "installHint", field);
    exec.provide_cluster_info = yaml_.read_bool(body, "provideClusterInfo", field);
    exec.interactive_mode = yaml_.read_string(body, "interactiveMode", field);
    const YAML::Node env = yaml_.child(body, "env", field);
    if (is_absent(env)) return exec;
    if (!env.IsSequence()) throw ShapeError{field + ".env", "is not a list"};
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string item_field = field + ".env[" + std::to_string(i) + "]";
      const YAML::Node item = env[i];
      yaml_.spend(1, [&] { return item_field; });
      if (!item.IsMap()) throw ShapeError{item_field, "is not a mapping"};
      std::string name = yaml_.read_string(item, "name", item_field);
      if (name.empty() || name.find('=') != std::string::npos) {
        throw ShapeError{item_field + ".name", "is not a variable name"};
      }
      exec.env.emplace_back(std::move(name), yaml_.read_string(item, "value", item_field));
    }
    return exec;
  }

  KubeconfigContext read_context(const YAML::Node& body, KubeconfigEntryOrigin origin,
                                 std::string name) {
    const std::string field = origin.field + ".context";
    KubeconfigContext context;
    context.name = std::move(name);
    context.cluster = yaml_.read_string(body, "cluster", field);
    context.user = yaml_.read_string(body, "user", field);
    context.context_namespace = yaml_.read_string(body, "namespace", field);
    context.origin = std::move(origin);
    return context;
  }

  std::string file_;
  std::string folder_;
  YamlFields yaml_;
};

template <class Entry>
const Entry* find_named(const std::vector<Entry>& entries, std::string_view name) {
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const Entry& entry) { return entry.name == name; });
  return it == entries.end() ? nullptr : &*it;
}

template <class Entry>
void merge_named(std::vector<Entry>& into, std::vector<Entry>& from) {
  for (auto& entry : from) {
    if (!find_named(into, entry.name)) into.push_back(std::move(entry));
  }
}

// "line 3, column 7: <yaml-cpp's words>" from a yaml-cpp exception.
std::string describe_yaml_error(const YAML::Exception& error) {
  std::string where;
  if (!error.mark.is_null()) {
    where = "line " + std::to_string(error.mark.line + 1) + ", column " +
            std::to_string(error.mark.column + 1) + ": ";
  }
  return where +
         (error.msg.empty() ? std::string("malformed") : printable_for_message(error.msg, 200));
}

}  // namespace

const KubeconfigCluster* Kubeconfig::find_cluster(std::string_view name) const {
  return find_named(clusters, name);
}
const KubeconfigUser* Kubeconfig::find_user(std::string_view name) const {
  return find_named(users, name);
}
const KubeconfigContext* Kubeconfig::find_context(std::string_view name) const {
  return find_named(contexts, name);
}

std::string Kubeconfig::describe() const {
  if (files.size() == 1) return "kubeconfig " + bounded_file_name(files.front());
  std::string text = "kubeconfig files ";
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (i > 0) text += i + 1 == files.size() ? " and " : ", ";
    text += bounded_file_name(files[i]);
  }
  return text;
}

ConfigExpected<Kubeconfig> parse_kubeconfig(std::string_view text,
                                            const std::string& display_name) {
  const std::string file = bounded_file_name(display_name);
  if (text.size() > kMaxKubeconfigBytes) {
    return ConfigError{"The kubeconfig " + file +
                       " is larger than 4 MiB, which no real "
                       "kubeconfig is; is it the right file?"};
  }
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    return DocumentReader(display_name).read(root);
  } catch (const ShapeError& error) {
    return kubeconfig_field_error(display_name, error.field, error.problem);
  } catch (const YAML::Exception& error) {
    return ConfigError{"The kubeconfig " + file +
                       " is not valid YAML: " + describe_yaml_error(error) + "."};
  }
}

Kubeconfig merge_kubeconfigs(std::vector<Kubeconfig> files) {
  Kubeconfig merged;
  for (auto& file : files) {
    merged.files.insert(merged.files.end(), file.files.begin(), file.files.end());
    if (merged.current_context.empty() && !file.current_context.empty()) {
      merged.current_context = file.current_context;
      merged.current_context_file = file.current_context_file;
    }
    merge_named(merged.clusters, file.clusters);
    merge_named(merged.users, file.users);
    merge_named(merged.contexts, file.contexts);
  }
  return merged;
}

ConfigError kubeconfig_field_error(const std::string& file, const std::string& field,
                                   const std::string& problem) {
  return ConfigError{"The kubeconfig " + bounded_file_name(file) + ": " + field + " " + problem +
                     "."};
}

}  // namespace vc::kubernetes
