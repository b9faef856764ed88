// computer_objects.h — the Kubernetes objects one computer is made of, as JSON documents.
//
//   Pod kilntainer-<id>                  the computer: its container "computer", and the
//                                        container "network-guard" that alone holds NET_ADMIN
//   PersistentVolumeClaim kilntainer-<id>  what survives the pod: /workspace and the home
//                                        directories (/root, and /home/computer on a desktop)
//   NetworkPolicy kilntainer-<id>.network-off  exists while the network is off: a deny-all
//                                        egress policy, for clusters whose network plugin
//                                        enforces policies, and the record of the wanted state
//
// The pod carries the container plugins' identity labels (kilntainers, kilntainers.computer-id,
// …) so that a computer is found by label and recognised as ours the same way on every engine;
// what a label value cannot hold (the image reference, the workspace path) goes in annotations.
//
// Why the pod looks as it does:
//  - shareProcessNamespace: the pause container is PID 1 and reaps the orphans of killed
//    commands, as the container plugins' init does;
//  - automountServiceAccountToken false and no service links: nothing in the computer learns
//    the cluster's credentials or its services;
//  - an init container seeds the claim from the image on first use, so the home directory on
//    the claim starts with what the image put there (a claim mounts empty, unlike an engine
//    volume);
//  - the network guard is a container of the desktop image (it has egress-firewall and
//    iptables) that sleeps until the plugin execs the switch in it; the computer's container
//    has NET_ADMIN dropped, so nothing in it, root and sudo included, can change the rules.
//
// Pure functions of their inputs, so every field can be checked in a unit test. Any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vc::kubernetes {

// Label and annotation keys: the container plugins' label names (the compatibility contract of
// a computer's identity), used as Kubernetes label keys.
namespace object_keys {
inline constexpr const char* kOwned = "kilntainers";                        // "true"
inline constexpr const char* kComputerId = "kilntainers.computer-id";        // the id
inline constexpr const char* kTemporary = "kilntainers.temporary";           // "true"/"false"
inline constexpr const char* kDesktop = "mcp-virtual-computer.desktop";      // wanted Xfce mode
inline constexpr const char* kDesktopCapable = "mcp-virtual-computer.desktop-capable";
// Annotations (their values are not label values).
inline constexpr const char* kImage = "kilntainers.image";
inline constexpr const char* kWorkspace = "mcp-virtual-computer.workspace";
}  // namespace object_keys

// Names of the pod's containers.
inline constexpr const char* kComputerContainer = "computer";
inline constexpr const char* kNetworkGuardContainer = "network-guard";
inline constexpr const char* kSeedContainer = "seed-claim";

// The desktop bridge inside a desktop computer (noVNC and its WebSocket).
inline constexpr int kDesktopBridgePort = 6080;
inline constexpr const char* kDesktopTokenEnv = "VC_DESKTOP_TOKEN";
inline constexpr const char* kDesktopModeEnv = "DESKTOP_ENVIRONMENT";
inline constexpr const char* kDesktopUserHome = "/home/computer";

struct ComputerSettings {
  std::string computer_id;
  std::string image;
  std::string pull_policy = "IfNotPresent";
  bool temporary = false;
  bool desktop_environment = false;  // the Xfce mode at creation
  bool desktop_capable = false;      // made from the bundled desktop image
  std::string desktop_token;         // opens the desktop view (desktop-capable only)
  std::string workspace_directory = "/workspace";
  std::string guard_image;  // the image of the network guard (the desktop image)
  std::optional<std::int64_t> cpu_millis;
  std::optional<std::int64_t> memory_bytes;
  // A JSON object merged into the pod (RFC 7386), or null. The identity labels, the name and
  // the claim's volume are put back after it.
  nlohmann::json overrides;
};

// "kilntainer-<id>": the pod's and the claim's name.
std::string computer_object_name(std::string_view computer_id);
// "kilntainer-<id>.network-off".
std::string network_off_policy_name(std::string_view computer_id);
// "kilntainers.computer-id=<id>": selects the computer's pod.
std::string computer_label_selector(std::string_view computer_id);
// "kilntainers=true": selects every computer.
std::string all_computers_label_selector();

nlohmann::json build_computer_pod(const ComputerSettings& settings);
// `storage_class` empty: the cluster's default. `size`: a quantity such as 10Gi.
nlohmann::json build_computer_claim(const ComputerSettings& settings,
                                    const std::string& storage_class, const std::string& size);
nlohmann::json build_network_off_policy(std::string_view computer_id);

}  // namespace vc::kubernetes
