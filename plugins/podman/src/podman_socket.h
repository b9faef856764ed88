// podman_socket.h — which Podman API socket the plugin talks to, and whether it may start a
// private service there.
//
// Order: --podman-socket (or CONTAINER_HOST, Podman's own variable, through the option);
// DOCKER_HOST when it points at a Podman socket; the standard socket — /run/podman/podman.sock
// for root, $XDG_RUNTIME_DIR/podman/podman.sock for other users — when it accepts connections;
// otherwise a private socket on which the plugin starts `podman system service` itself.
#pragma once

#include <optional>
#include <string>

namespace vc::podman {

enum class ServiceMode { kAuto, kNever, kAlways };

struct SocketChoice {
  std::string address;         // unix:///... or tcp://...
  bool start_service = false;  // the plugin starts a private service listening at `address`
  std::string socket_path;     // the private socket's path when start_service
};

struct SocketInputs {
  std::optional<std::string> explicit_address;  // --podman-socket / CONTAINER_HOST
  std::optional<std::string> docker_host;       // DOCKER_HOST
  ServiceMode mode = ServiceMode::kAuto;
  bool is_root = false;
  std::optional<std::string> xdg_runtime_dir;
  long pid = 0;
};

// "/run/podman/podman.sock" -> "unix:///run/podman/podman.sock"; other text unchanged.
std::string normalise_address(const std::string& text);

// Whether DOCKER_HOST names a Podman socket (a unix socket whose path mentions "podman").
bool looks_like_podman_socket(const std::string& address);

// Decides; probes the standard socket with `accepts` (unix_socket_accepts in production).
SocketChoice choose_socket(const SocketInputs& inputs,
                           bool (*accepts)(const std::string& socket_path));

// "auto" | "never" | "always"; nullopt for anything else.
std::optional<ServiceMode> parse_service_mode(const std::string& text);

}  // namespace vc::podman
