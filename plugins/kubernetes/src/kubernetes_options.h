// kubernetes_options.h — the Kubernetes plugin's command-line options, parsed and checked.
//
// The host hands create_backend() {"options":{"<name>":<value>,...}} with every declared option
// present (null when unset without a default). parse_kubernetes_options() turns that into
// KubernetesOptions and refuses a bad value with a sentence that names the option and shows a
// valid example. Pure: no I/O (the kubeconfig is read by validate, not here), so
// create_backend() stays instant. The declarations --help lists are kKubernetesOptionDecls.
//
// Any thread.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/plugin_entry.h>

namespace vc::kubernetes {

// Option names, as users type them after "--".
namespace option_names {
inline constexpr const char* kKubeconfig = "kubeconfig";
inline constexpr const char* kContext = "context";
inline constexpr const char* kNamespace = "namespace";
inline constexpr const char* kImage = "image";
inline constexpr const char* kDesktopImage = "desktop-image";
inline constexpr const char* kImagePullPolicy = "image-pull-policy";
inline constexpr const char* kCpu = "cpu";
inline constexpr const char* kMemory = "memory";
inline constexpr const char* kStorageClass = "storage-class";
inline constexpr const char* kWorkspaceSize = "workspace-size";
inline constexpr const char* kPodOverrides = "pod-overrides";
inline constexpr const char* kApiTimeout = "api-timeout";
inline constexpr const char* kExecAgent = "exec-agent";
inline constexpr const char* kExecAgentBinary = "exec-agent-binary";
}  // namespace option_names

// The bundled desktop image, as the container plugins build it. On a real cluster it must be
// pushed to a registry the nodes pull from, and --desktop-image names it there.
inline constexpr const char* kDefaultDesktopImage = "mcp-virtual-computer-desktop:bookworm";
inline constexpr const char* kDefaultNamespace = "mcp-virtual-computer";
inline constexpr const char* kDefaultWorkspaceSize = "10Gi";
inline constexpr std::int64_t kDefaultApiTimeoutSeconds = 30;
// The kubelet refuses smaller memory limits in practice (the container cannot start).
inline constexpr std::int64_t kMinimumMemoryBytes = 6 * 1024 * 1024;

// How commands reach a computer: through the exec agent over one long-lived exec stream,
// falling back to one API exec per command where it cannot run (auto); the agent or an error
// (on); one API exec per command (off).
enum class ExecAgentMode { kAuto, kOn, kOff };

struct KubernetesOptions {
  // Empty: $KUBECONFIG, then ~/.kube/config, then the in-cluster service account.
  std::string kubeconfig;
  // Empty: the kubeconfig's current-context.
  std::string context;
  // Where computers live. Empty when the user gave none: kDefaultNamespace (the kubeconfig
  // context's own namespace is not used: computers should not land in "default" by accident).
  std::string computer_namespace = kDefaultNamespace;
  // Empty: the desktop image (desktop-capable computers).
  std::string image;
  std::string desktop_image = kDefaultDesktopImage;
  std::string image_pull_policy = "IfNotPresent";  // IfNotPresent, Always or Never
  std::optional<std::int64_t> cpu_millis;
  std::optional<std::int64_t> memory_bytes;
  std::string storage_class;  // empty: the cluster's default storage class
  std::string workspace_size = kDefaultWorkspaceSize;
  nlohmann::json pod_overrides;  // a JSON object merged into every pod, or null
  std::chrono::milliseconds api_timeout{std::chrono::seconds(kDefaultApiTimeoutSeconds)};
  ExecAgentMode exec_agent = ExecAgentMode::kAuto;
  std::string exec_agent_binary;  // empty: the one installed beside the plugin

  // The image new computers are made from.
  const std::string& computer_image() const { return image.empty() ? desktop_image : image; }
};

// Parses the create_backend() config. On failure returns nullopt and sets `error` to an
// actionable sentence naming the option.
std::optional<KubernetesOptions> parse_kubernetes_options(const nlohmann::json& config,
                                                          std::string& error);

// True for a Kubernetes resource quantity as a PersistentVolumeClaim's size takes it: a whole or
// decimal number with an optional binary (Ki…Ei) or decimal (k, M…E) suffix, e.g. 10Gi.
bool is_storage_quantity(const std::string& text);

// True for a DNS-1123 label (what namespaces are named with): at most 63 lower-case letters,
// digits and '-', starting and ending with a letter or digit.
bool is_dns_label(const std::string& text);

// True for a DNS-1123 subdomain (what storage classes are named with): dot-separated labels,
// at most 253 characters in all.
bool is_dns_subdomain(const std::string& text);

// The plugin's option declarations in the order --help lists them, ending with nullptr. The
// object itself, so that the plugin's constant descriptor can point at it.
extern const std::array<const vc_option_decl*, 15> kKubernetesOptionDecls;
const std::array<const vc_option_decl*, 15>& kubernetes_option_decls();

}  // namespace vc::kubernetes
