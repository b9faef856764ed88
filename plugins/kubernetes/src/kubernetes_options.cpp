// kubernetes_options.cpp — checking the Kubernetes plugin's options before the API is contacted.
#include "kubernetes_options.h"

#include <cmath>
#include <regex>

#include <vc-backend-1/cpp/requests.h>

namespace vc::kubernetes {
namespace {

constexpr vc_option_decl kKubeconfigOption = sdk::option(
    VC_OPTION_STRING, option_names::kKubeconfig,
    "kubeconfig file to reach the cluster with (default: $KUBECONFIG, then ~/.kube/config, "
    "then the service account of the pod the server runs in)");
constexpr vc_option_decl kContextOption = sdk::option(
    VC_OPTION_STRING, option_names::kContext,
    "Context of the kubeconfig to use (default: its current-context)");
constexpr vc_option_decl kNamespaceOption = sdk::option(
    VC_OPTION_STRING, option_names::kNamespace,
    "Namespace computers are created in; it must exist",
    {.default_value = kDefaultNamespace});
constexpr vc_option_decl kImageOption = sdk::option(
    VC_OPTION_STRING, option_names::kImage,
    "Image new computers are created from (default: --desktop-image, which gives desktop "
    "computers); debian:bookworm-slim gives headless ones");
constexpr vc_option_decl kDesktopImageOption = sdk::option(
    VC_OPTION_STRING, option_names::kDesktopImage,
    "Where the nodes find the bundled desktop image: push the image `computers prepare` builds "
    "to a registry the cluster pulls from and name it here (e.g. "
    "registry.example.com/mcp-virtual-computer-desktop:bookworm). It also holds the network "
    "switch of every computer",
    {.default_value = kDefaultDesktopImage});
constexpr vc_option_decl kImagePullPolicyOption = sdk::option(
    VC_OPTION_STRING, option_names::kImagePullPolicy,
    "When the nodes pull images: IfNotPresent, Always or Never",
    {.default_value = "IfNotPresent"});
constexpr vc_option_decl kCpuOption = sdk::option(
    VC_OPTION_NUMBER, option_names::kCpu,
    "CPU limit of new computers, in CPUs (e.g. 1.5); default: no limit");
constexpr vc_option_decl kMemoryOption = sdk::option(
    VC_OPTION_STRING, option_names::kMemory,
    "Memory limit of new computers (e.g. 512m, 2g); default: no limit");
constexpr vc_option_decl kStorageClassOption = sdk::option(
    VC_OPTION_STRING, option_names::kStorageClass,
    "Storage class of the volume that keeps each computer's /workspace and home directory "
    "(default: the cluster's default storage class)");
constexpr vc_option_decl kWorkspaceSizeOption = sdk::option(
    VC_OPTION_STRING, option_names::kWorkspaceSize,
    "Size of that volume, as a Kubernetes quantity (e.g. 10Gi)",
    {.default_value = kDefaultWorkspaceSize});
constexpr vc_option_decl kPodOverridesOption = sdk::option(
    VC_OPTION_STRING, option_names::kPodOverrides,
    "JSON object merged into every computer's Pod, e.g. "
    "'{\"spec\":{\"nodeSelector\":{\"pool\":\"agents\"}}}' (node selectors, tolerations, "
    "image pull secrets, a service account)");
constexpr vc_option_decl kApiTimeoutOption = sdk::option(
    VC_OPTION_INTEGER, option_names::kApiTimeout,
    "Seconds an ordinary Kubernetes API call may take (commands and pod starts are not limited "
    "by it)",
    {.default_value = "30"});
constexpr vc_option_decl kExecAgentOption = sdk::option(
    VC_OPTION_STRING, option_names::kExecAgent,
    "How commands reach a computer: auto runs them through the small exec agent the plugin "
    "puts in each computer, over one long-lived exec stream, and falls back to one API exec "
    "per command where it cannot run; on fails instead of falling back; off always uses one "
    "API exec per command (docs/exec-agent.md)",
    {.default_value = "auto"});
constexpr vc_option_decl kExecAgentBinaryOption = sdk::option(
    VC_OPTION_STRING, option_names::kExecAgentBinary,
    "The exec agent program copied into computers (default: exec-agent/vc-exec-agent "
    "installed beside this plugin)");

const nlohmann::json& option_value(const nlohmann::json& options, const char* name) {
  static const nlohmann::json null_value;
  auto it = options.find(name);
  return it == options.end() ? null_value : *it;
}

std::string quoted(const nlohmann::json& value) {
  return value.is_string() ? "'" + value.get<std::string>() + "'" : value.dump();
}

bool is_unset(const nlohmann::json& value) {
  return value.is_null() || (value.is_string() && value.get<std::string>().empty());
}

bool has_space_or_control(const std::string& text) {
  for (unsigned char c : text) {
    if (c <= ' ' || c == 0x7f) return true;
  }
  return false;
}

// A string option that, when set, must pass `valid`; the sentence names the option and shows
// `example`. Returns false (and sets error) when it does not.
bool read_string(const nlohmann::json& options, const char* name, bool (*valid)(const std::string&),
                 const char* what, std::string& out, std::string& error) {
  const auto& value = option_value(options, name);
  if (is_unset(value)) return true;
  if (!value.is_string() || !valid(value.get<std::string>())) {
    error = "--" + std::string(name) + " must be " + what + "; got " + quoted(value);
    return false;
  }
  out = value.get<std::string>();
  return true;
}

bool is_image_reference(const std::string& text) {
  return !text.empty() && text.size() <= 4096 && !has_space_or_control(text);
}

bool is_pull_policy(const std::string& text) {
  return text == "IfNotPresent" || text == "Always" || text == "Never";
}

bool is_absolute_path(const std::string& text) {
  return text.size() <= 4096 && text.front() == '/' && !has_space_or_control(text);
}

bool is_plain_text(const std::string& text) {
  return text.size() <= 4096 && !has_space_or_control(text);
}

bool read_resources(const nlohmann::json& options, KubernetesOptions& parsed, std::string& error) {
  const auto& cpu = option_value(options, option_names::kCpu);
  if (!cpu.is_null()) {
    if (!cpu.is_number() || !std::isfinite(cpu.get<double>()) || cpu.get<double>() < 0.001 ||
        cpu.get<double>() > 1e6) {
      error = "--cpu must be a positive number of CPUs such as 1 or 1.5 (at least 0.001); got " +
              quoted(cpu);
      return false;
    }
    parsed.cpu_millis = static_cast<std::int64_t>(std::llround(cpu.get<double>() * 1000));
  }
  const auto& memory = option_value(options, option_names::kMemory);
  if (!is_unset(memory)) {
    std::optional<std::int64_t> bytes;
    if (memory.is_string()) bytes = sdk::parse_memory_size(memory.get<std::string>());
    if (memory.is_number_unsigned()) bytes = memory.get<std::int64_t>();
    if (!bytes || *bytes < kMinimumMemoryBytes) {
      error = "--memory must be a size of at least 6m such as 512m or 2g (a whole number with "
              "an optional b, k, m or g suffix); got " + quoted(memory);
      return false;
    }
    parsed.memory_bytes = bytes;
  }
  return read_string(options, option_names::kStorageClass, is_dns_subdomain,
                     "the name of a storage class of the cluster, such as standard",
                     parsed.storage_class, error) &&
         read_string(options, option_names::kWorkspaceSize, is_storage_quantity,
                     "a Kubernetes quantity such as 10Gi or 500Mi", parsed.workspace_size, error);
}

bool read_pod_overrides(const nlohmann::json& options, KubernetesOptions& parsed,
                        std::string& error) {
  const auto& overrides = option_value(options, option_names::kPodOverrides);
  if (is_unset(overrides)) return true;
  const char* example = "'{\"spec\":{\"nodeSelector\":{\"pool\":\"agents\"}}}'";
  if (!overrides.is_string()) {
    error = "--pod-overrides must be a JSON object given as a string, such as " +
            std::string(example);
    return false;
  }
  nlohmann::json document = nlohmann::json::parse(overrides.get<std::string>(), nullptr,
                                                  /*allow_exceptions=*/false);
  if (!document.is_object()) {
    error = "--pod-overrides must be a JSON object to merge into each computer's Pod, such as " +
            std::string(example) + "; got " + quoted(overrides);
    return false;
  }
  parsed.pod_overrides = std::move(document);
  return true;
}

bool read_timeout_and_agent(const nlohmann::json& options, KubernetesOptions& parsed,
                            std::string& error) {
  const auto& timeout = option_value(options, option_names::kApiTimeout);
  if (!timeout.is_null()) {
    if (!timeout.is_number_integer() || timeout.get<std::int64_t>() < 1 ||
        timeout.get<std::int64_t>() > 86400) {
      error = "--api-timeout must be a whole number of seconds between 1 and 86400; got " +
              quoted(timeout);
      return false;
    }
    parsed.api_timeout = std::chrono::seconds(timeout.get<std::int64_t>());
  }
  const auto& agent = option_value(options, option_names::kExecAgent);
  if (!agent.is_null()) {
    const std::string mode = agent.is_string() ? agent.get<std::string>() : std::string();
    if (mode == "auto") {
      parsed.exec_agent = ExecAgentMode::kAuto;
    } else if (mode == "on") {
      parsed.exec_agent = ExecAgentMode::kOn;
    } else if (mode == "off") {
      parsed.exec_agent = ExecAgentMode::kOff;
    } else {
      error = "--exec-agent must be auto, on or off; got " + quoted(agent);
      return false;
    }
  }
  return read_string(options, option_names::kExecAgentBinary, is_absolute_path,
                     "an absolute file path such as "
                     "/usr/local/lib/mcp-virtual-computer/backends/exec-agent/vc-exec-agent",
                     parsed.exec_agent_binary, error);
}

}  // namespace

bool is_dns_label(const std::string& text) {
  static const std::regex label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return !text.empty() && text.size() <= 63 && std::regex_match(text, label);
}

bool is_dns_subdomain(const std::string& text) {
  if (text.empty() || text.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    if (!is_dns_label(text.substr(start, dot - start))) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

bool is_storage_quantity(const std::string& text) {
  static const std::regex quantity("[0-9]{1,15}(\\.[0-9]{1,9})?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?");
  return std::regex_match(text, quantity) && text != "0";
}

std::optional<KubernetesOptions> parse_kubernetes_options(const nlohmann::json& config,
                                                          std::string& error) {
  if (!config.is_object()) {
    error = "the backend configuration is not a JSON object";
    return std::nullopt;
  }
  static const nlohmann::json empty_options = nlohmann::json::object();
  auto options_it = config.find("options");
  const nlohmann::json& options =
      options_it != config.end() && options_it->is_object() ? *options_it : empty_options;
  KubernetesOptions parsed;
  const bool ok =
      read_string(options, option_names::kKubeconfig, is_plain_text,
                  "the path of a kubeconfig file such as /root/.kube/config", parsed.kubeconfig,
                  error) &&
      read_string(options, option_names::kContext, is_plain_text,
                  "the name of a context of the kubeconfig", parsed.context, error) &&
      read_string(options, option_names::kNamespace, is_dns_label,
                  "a namespace name such as mcp-virtual-computer (lower-case letters, digits "
                  "and '-', at most 63)",
                  parsed.computer_namespace, error) &&
      read_string(options, option_names::kImage, is_image_reference,
                  "an image reference such as debian:bookworm-slim", parsed.image, error) &&
      read_string(options, option_names::kDesktopImage, is_image_reference,
                  "an image reference such as "
                  "registry.example.com/mcp-virtual-computer-desktop:bookworm",
                  parsed.desktop_image, error) &&
      read_string(options, option_names::kImagePullPolicy, is_pull_policy,
                  "IfNotPresent, Always or Never", parsed.image_pull_policy, error) &&
      read_resources(options, parsed, error) && read_pod_overrides(options, parsed, error) &&
      read_timeout_and_agent(options, parsed, error);
  if (!ok) return std::nullopt;
  return parsed;
}

constinit const std::array<const vc_option_decl*, 15> kKubernetesOptionDecls = {
    &kKubeconfigOption,    &kContextOption,       &kNamespaceOption,
    &kImageOption,         &kDesktopImageOption,  &kImagePullPolicyOption,
    &kCpuOption,           &kMemoryOption,        &kStorageClassOption,
    &kWorkspaceSizeOption, &kPodOverridesOption,  &kApiTimeoutOption,
    &kExecAgentOption,     &kExecAgentBinaryOption, nullptr};

const std::array<const vc_option_decl*, 15>& kubernetes_option_decls() {
  return kKubernetesOptionDecls;
}

}  // namespace vc::kubernetes
