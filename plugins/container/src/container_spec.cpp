// container_spec.cpp — building the create request of a computer's container.
#include "container_spec.h"

#include <cmath>

#include "computer_naming.h"
#include "desktop_access.h"

namespace vc::container {
namespace {

const char* bool_text(bool value) { return value ? "true" : "false"; }

// The shared memory X clients use for their images (the original's --shm-size 256m).
constexpr std::int64_t kDesktopShmBytes = 256LL * 1024 * 1024;

nlohmann::json identity_labels(const ContainerSpec& spec) {
  nlohmann::json identity = {
      {labels::kOwned, "true"},
      {labels::kComputerId, spec.computer_id},
      {labels::kTemporary, bool_text(spec.temporary)},
      {labels::kImage, spec.image},
      {labels::kDesktop, bool_text(spec.desktop_environment)},
      {labels::kWorkspace, spec.workspace_directory},
  };
  if (spec.desktop_capable) identity[labels::kDesktopCapable] = "true";
  // (A checkpoint image carries this label empty, so a container without one inherits "".)
  if (!spec.base_image.empty()) identity[labels::kBaseImage] = spec.base_image;
  if (!spec.mounts.empty()) {
    identity[labels::kMounts] = mounts_label_value(spec.mounts);
    identity[labels::kMountOwner] = spec.mount_owner.text();
  }
  return identity;
}

// The image's own command runs (its supervisor); the bridge is published on loopback only, on
// a port the engine picks; the secret and the first Xfce mode go in the environment.
void add_desktop(const ContainerSpec& spec, nlohmann::json& document) {
  document.erase("Cmd");
  document["Env"] = nlohmann::json::array(
      {std::string(kDesktopModeEnv) + "=" + bool_text(spec.desktop_environment),
       std::string(kDesktopTokenEnv) + "=" + spec.desktop_token});
  document["ExposedPorts"] = {{kDesktopBridgePortKey, nlohmann::json::object()}};
  auto& host_config = document["HostConfig"];
  host_config["PortBindings"] = {
      {kDesktopBridgePortKey,
       nlohmann::json::array({{{"HostIp", "127.0.0.1"}, {"HostPort", ""}}})}};
  host_config["ShmSize"] = kDesktopShmBytes;
}

}  // namespace

std::vector<std::string> keep_alive_command() { return {"tail", "-f", "/dev/null"}; }

std::vector<std::string> hardened_capabilities() {
  return {"CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID"};
}

nlohmann::json build_create_document(const ContainerSpec& spec) {
  nlohmann::json host_config = {
      {"AutoRemove", spec.temporary},  // --rm only for temporary computers
      {"NetworkMode", spec.network},
      // An init as PID 1 reaps the orphans of killed commands and stops the container
      // promptly on SIGTERM.
      {"Init", true},
  };
  if (spec.cpus) {
    host_config["NanoCpus"] = static_cast<std::int64_t>(std::llround(*spec.cpus * 1e9));
  }
  if (spec.memory_bytes) host_config["Memory"] = *spec.memory_bytes;
  if (spec.pids_limit) host_config["PidsLimit"] = *spec.pids_limit;
  if (spec.harden) {
    host_config["CapDrop"] = nlohmann::json::array({"ALL"});
    host_config["CapAdd"] = hardened_capabilities();
    host_config["SecurityOpt"] = nlohmann::json::array({"no-new-privileges"});
  }

  nlohmann::json document = {
      {"Image", spec.base_image.empty() ? spec.image : spec.base_image},
      {"Cmd", keep_alive_command()},
      {"Labels", identity_labels(spec)},
      {"WorkingDir", spec.workspace_directory},
      {"Tty", false},
      {"OpenStdin", false},
      {"AttachStdin", false},
      {"AttachStdout", false},
      {"AttachStderr", false},
      {"HostConfig", std::move(host_config)},
  };
  if (spec.desktop_capable) add_desktop(spec, document);

  if (spec.overrides.is_object()) {
    document.merge_patch(spec.overrides);
    // The identity labels always win: they are how the computer is found again.
    if (!document["Labels"].is_object()) document["Labels"] = nlohmann::json::object();
    const nlohmann::json identity = identity_labels(spec);  // items() must not outlive it
    for (const auto& [key, value] : identity.items()) document["Labels"][key] = value;
  }
  // The computer's mounts come after any the overrides add (a merge patch replaces arrays).
  if (!spec.mounts.empty()) {
    auto& mounts = document["HostConfig"]["Mounts"];
    if (!mounts.is_array()) mounts = nlohmann::json::array();
    for (auto& entry : engine_mounts(spec.mounts)) mounts.push_back(std::move(entry));
  }
  return document;
}

}  // namespace vc::container
