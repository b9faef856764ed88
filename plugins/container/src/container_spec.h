// container_spec.h — the body of POST /containers/create for one computer.
//
// Pure: builds a JSON document from the computer's settings and the plugin's options, so every
// field that reaches the engine can be checked in a unit test. Field mapping from the original's
// `docker run` flags (docs/compatibility.md, "Names and labels"): --name is the query,
// --workdir WorkingDir, --label Labels, --rm AutoRemove, --cpus NanoCpus, --memory Memory, the
// keep-alive argv Cmd.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host_mounts.h"

namespace vc::container {

// What a computer is made of.
struct ContainerSpec {
  std::string computer_id;
  std::string image;  // the image asked for (recorded in a label; a factory reset goes back to it)
  // The image the container is made from when it is not `image`: a checkpoint's own tag for
  // this container (checkpoint_images.h), recorded in the base-image label. Empty otherwise.
  std::string base_image;
  bool temporary = false;
  bool desktop_environment = false;  // the Xfce mode at creation (recorded in a label)
  // Made from the bundled desktop image: the image's own command (the desktop supervisor)
  // runs, the desktop bridge is published on 127.0.0.1, and `desktop_token` opens it.
  bool desktop_capable = false;
  std::string desktop_token;  // made fresh at create unless given (a restore keeps its secret)
  std::string workspace_directory = "/workspace";
  std::string network;  // the network at create time (the profile's online network)
  std::optional<double> cpus;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> pids_limit;
  bool harden = false;
  // Host folders bound into the computer (HostConfig.Mounts), recorded in a label with the owner
  // of what the computer makes in them (docs/mounts.md). Checked before they get here.
  std::vector<HostMount> mounts;
  MountOwner mount_owner;
  // JSON object merged into the document (RFC 7386 merge patch), or null. See
  // build_create_document() for what it may not change.
  nlohmann::json overrides;
};

// The command that keeps a plain image's container alive: it does nothing, forever, and exits
// at once on SIGTERM (Init: true puts an init in front of it that forwards signals and reaps
// orphans of exec'd commands).
std::vector<std::string> keep_alive_command();

// Capabilities a hardened computer keeps (everything else is dropped): what root inside a
// plain Linux userland needs for package managers and file ownership. Documented in
// plugins/docker/README.md together with what hardening breaks.
std::vector<std::string> hardened_capabilities();

// The create document. The overrides are merged last, then the identity labels are put
// back: a container that lost them would no longer be recognised as this computer. A desktop
// computer gets no NET_ADMIN (its network switch is applied from outside, egress_firewall.h).
nlohmann::json build_create_document(const ContainerSpec& spec);

}  // namespace vc::container
