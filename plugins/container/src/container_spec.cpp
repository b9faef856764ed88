// container_spec.cpp — building the create request of a computer's container.
#include "container_spec.h"

#include <cmath>

#include "computer_naming.h"

namespace vc::container {
namespace {

const char* bool_text(bool value) { return value ? "true" : "false"; }

nlohmann::json identity_labels(const ContainerSpec& spec) {
  return {
      {labels::kOwned, "true"},
      {labels::kComputerId, spec.computer_id},
      {labels::kTemporary, bool_text(spec.temporary)},
      {labels::kImage, spec.image},
      {labels::kDesktop, bool_text(spec.desktop_environment)},
      {labels::kWorkspace, spec.workspace_directory},
  };
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
      {"Image", spec.image},
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

  if (spec.overrides.is_object()) {
    document.merge_patch(spec.overrides);
    // The identity labels always win: they are how the computer is found again.
    if (!document["Labels"].is_object()) document["Labels"] = nlohmann::json::object();
    const nlohmann::json identity = identity_labels(spec);  // items() must not outlive it
    for (const auto& [key, value] : identity.items()) document["Labels"][key] = value;
  }
  return document;
}

}  // namespace vc::container
