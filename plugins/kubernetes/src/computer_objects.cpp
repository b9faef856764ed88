// computer_objects.cpp — building the Pod, claim and network policy of one computer.
#include "computer_objects.h"

namespace vc::kubernetes {
namespace {

constexpr const char* kClaimVolume = "computer-claim";
constexpr const char* kShmVolume = "dev-shm";
// Where the seed container sees the claim.
constexpr const char* kSeedMount = "/vc-claim";
// The shared memory X clients use for their images (the container plugins' --shm-size 256m).
constexpr const char* kDesktopShmSize = "256Mi";

const char* bool_text(bool value) { return value ? "true" : "false"; }

// 'text' for /bin/sh, whatever it holds.
std::string shell_quoted(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

nlohmann::json identity_labels(const ComputerSettings& settings) {
  nlohmann::json labels = {
      {object_keys::kOwned, "true"},
      {object_keys::kComputerId, settings.computer_id},
      {object_keys::kTemporary, bool_text(settings.temporary)},
      {object_keys::kDesktop, bool_text(settings.desktop_environment)},
  };
  if (settings.desktop_capable) labels[object_keys::kDesktopCapable] = "true";
  return labels;
}

nlohmann::json identity_metadata(const ComputerSettings& settings) {
  return {{"name", computer_object_name(settings.computer_id)},
          {"labels", identity_labels(settings)},
          {"annotations",
           {{object_keys::kImage, settings.image},
            {object_keys::kWorkspace, settings.workspace_directory}}}};
}

// The claim's folders and where the computer sees them.
nlohmann::json claim_mounts(const ComputerSettings& settings) {
  nlohmann::json mounts = nlohmann::json::array(
      {{{"name", kClaimVolume}, {"mountPath", settings.workspace_directory}, {"subPath", "workspace"}},
       {{"name", kClaimVolume}, {"mountPath", "/root"}, {"subPath", "home-root"}}});
  if (settings.desktop_capable) {
    mounts.push_back(
        {{"name", kClaimVolume}, {"mountPath", kDesktopUserHome}, {"subPath", "home-computer"}});
  }
  return mounts;
}

// Copies what the image has in the folders the claim will cover, once: the marker file says
// the claim was seeded (a factory reset makes a new claim, seeded again).
std::string seed_script(const ComputerSettings& settings) {
  std::string script = "set -e\nclaim=" + std::string(kSeedMount) +
                       "\n[ -e \"$claim/.seeded\" ] && exit 0\n"
                       "seed() { mkdir -p \"$claim/$2\"; if [ -d \"$1\" ]; then "
                       "cp -a \"$1/.\" \"$claim/$2/\"; fi; }\n";
  script += "seed " + shell_quoted(settings.workspace_directory) + " workspace\n";
  script += "seed /root home-root\n";
  if (settings.desktop_capable) script += "seed " + std::string(kDesktopUserHome) + " home-computer\n";
  script += "touch \"$claim/.seeded\"\n";
  return script;
}

nlohmann::json seed_container(const ComputerSettings& settings) {
  return {{"name", kSeedContainer},
          {"image", settings.image},
          {"imagePullPolicy", settings.pull_policy},
          {"command", {"/bin/sh", "-c", seed_script(settings)}},
          {"securityContext", {{"runAsUser", 0}}},
          {"volumeMounts", {{{"name", kClaimVolume}, {"mountPath", kSeedMount}}}}};
}

nlohmann::json computer_container(const ComputerSettings& settings) {
  nlohmann::json container = {
      {"name", kComputerContainer},
      {"image", settings.image},
      {"imagePullPolicy", settings.pull_policy},
      {"workingDir", settings.workspace_directory},
      {"volumeMounts", claim_mounts(settings)},
      // Root in the computer, as on the container engines, but never the network switch.
      {"securityContext", {{"runAsUser", 0}, {"capabilities", {{"drop", {"NET_ADMIN"}}}}}},
  };
  nlohmann::json limits = nlohmann::json::object();
  if (settings.cpu_millis) limits["cpu"] = std::to_string(*settings.cpu_millis) + "m";
  if (settings.memory_bytes) limits["memory"] = std::to_string(*settings.memory_bytes);
  if (!limits.empty()) container["resources"] = {{"limits", limits}};
  if (!settings.desktop_capable) {
    // A plain image's container is kept alive by a command that does nothing, forever.
    container["command"] = {"tail", "-f", "/dev/null"};
    return container;
  }
  // The image's own command runs (its supervisor); the secret and the first Xfce mode go in
  // the environment; X clients get a large /dev/shm.
  container["env"] = {{{"name", kDesktopModeEnv}, {"value", bool_text(settings.desktop_environment)}},
                      {{"name", kDesktopTokenEnv}, {"value", settings.desktop_token}}};
  container["ports"] = {{{"name", "desktop"}, {"containerPort", kDesktopBridgePort}}};
  container["volumeMounts"].push_back({{"name", kShmVolume}, {"mountPath", "/dev/shm"}});
  return container;
}

nlohmann::json network_guard_container(const ComputerSettings& settings) {
  return {{"name", kNetworkGuardContainer},
          {"image", settings.guard_image},
          {"imagePullPolicy", settings.pull_policy},
          {"command", {"tail", "-f", "/dev/null"}},
          {"securityContext",
           {{"runAsUser", 0},
            {"capabilities", {{"drop", {"ALL"}}, {"add", {"NET_ADMIN", "NET_RAW"}}}}}},
          {"resources",
           {{"requests", {{"cpu", "5m"}, {"memory", "8Mi"}}},
            {"limits", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}};
}

nlohmann::json pod_volumes(const ComputerSettings& settings) {
  nlohmann::json volumes = nlohmann::json::array(
      {{{"name", kClaimVolume},
        {"persistentVolumeClaim", {{"claimName", computer_object_name(settings.computer_id)}}}}});
  if (settings.desktop_capable) {
    volumes.push_back(
        {{"name", kShmVolume}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", kDesktopShmSize}}}});
  }
  return volumes;
}

}  // namespace

std::string computer_object_name(std::string_view computer_id) {
  return "kilntainer-" + std::string(computer_id);
}

std::string network_off_policy_name(std::string_view computer_id) {
  return computer_object_name(computer_id) + ".network-off";
}

std::string computer_label_selector(std::string_view computer_id) {
  return std::string(object_keys::kComputerId) + "=" + std::string(computer_id);
}

std::string all_computers_label_selector() { return std::string(object_keys::kOwned) + "=true"; }

nlohmann::json build_computer_pod(const ComputerSettings& settings) {
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", identity_metadata(settings)},
      {"spec",
       {{"restartPolicy", "Always"},
        {"shareProcessNamespace", true},
        {"automountServiceAccountToken", false},
        {"enableServiceLinks", false},
        {"terminationGracePeriodSeconds", 10},
        {"initContainers", {seed_container(settings)}},
        {"containers", {computer_container(settings), network_guard_container(settings)}},
        {"volumes", pod_volumes(settings)}}}};
  if (settings.overrides.is_object()) {
    pod.merge_patch(settings.overrides);
    // What makes the pod this computer's always wins: its name, its labels, its claim.
    const nlohmann::json identity = identity_metadata(settings);
    pod["metadata"]["name"] = identity["name"];
    if (!pod["metadata"]["labels"].is_object()) pod["metadata"]["labels"] = nlohmann::json::object();
    for (const auto& [key, value] : identity["labels"].items()) pod["metadata"]["labels"][key] = value;
    if (!pod["spec"]["volumes"].is_array()) pod["spec"]["volumes"] = nlohmann::json::array();
    auto& volumes = pod["spec"]["volumes"];
    bool has_claim = false;
    for (auto& volume : volumes) {
      if (volume.value("name", "") == kClaimVolume) {
        volume = pod_volumes(settings)[0];
        has_claim = true;
      }
    }
    if (!has_claim) volumes.push_back(pod_volumes(settings)[0]);
  }
  return pod;
}

nlohmann::json build_computer_claim(const ComputerSettings& settings,
                                    const std::string& storage_class, const std::string& size) {
  nlohmann::json claim = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolumeClaim"},
      {"metadata", identity_metadata(settings)},
      {"spec",
       {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  if (!storage_class.empty()) claim["spec"]["storageClassName"] = storage_class;
  return claim;
}

nlohmann::json build_network_off_policy(std::string_view computer_id) {
  return {{"apiVersion", "networking.k8s.io/v1"},
          {"kind", "NetworkPolicy"},
          {"metadata",
           {{"name", network_off_policy_name(computer_id)},
            {"labels",
             {{object_keys::kOwned, "true"}, {object_keys::kComputerId, std::string(computer_id)}}}}},
          {"spec",
           {{"podSelector", {{"matchLabels", {{object_keys::kComputerId, std::string(computer_id)}}}}},
            {"policyTypes", {"Egress"}},
            {"egress", nlohmann::json::array()}}}};
}

}  // namespace vc::kubernetes
