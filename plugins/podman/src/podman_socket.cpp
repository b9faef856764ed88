// podman_socket.cpp — see podman_socket.h.
#include "podman_socket.h"

namespace vc::podman {
namespace {

constexpr const char* kUnixScheme = "unix://";
constexpr const char* kRootSocket = "/run/podman/podman.sock";
constexpr const char* kPrivateRootDirectory = "/run/mcp-virtual-computer";

std::string standard_socket(const SocketInputs& inputs) {
  if (!inputs.is_root && inputs.xdg_runtime_dir && !inputs.xdg_runtime_dir->empty()) {
    return *inputs.xdg_runtime_dir + "/podman/podman.sock";
  }
  return kRootSocket;
}

std::string private_socket(const SocketInputs& inputs) {
  const std::string name = "podman-" + std::to_string(inputs.pid) + ".sock";
  if (!inputs.is_root && inputs.xdg_runtime_dir && !inputs.xdg_runtime_dir->empty()) {
    return *inputs.xdg_runtime_dir + "/mcp-virtual-computer/" + name;
  }
  return std::string(kPrivateRootDirectory) + "/" + name;
}

}  // namespace

std::string normalise_address(const std::string& text) {
  if (!text.empty() && text.front() == '/') return kUnixScheme + text;
  return text;
}

bool looks_like_podman_socket(const std::string& address) {
  return address.rfind(kUnixScheme, 0) == 0 && address.find("podman") != std::string::npos;
}

SocketChoice choose_socket(const SocketInputs& inputs,
                           bool (*accepts)(const std::string& socket_path)) {
  if (inputs.mode != ServiceMode::kAlways) {
    if (inputs.explicit_address && !inputs.explicit_address->empty()) {
      return {normalise_address(*inputs.explicit_address), false, ""};
    }
    if (inputs.docker_host && looks_like_podman_socket(*inputs.docker_host)) {
      return {*inputs.docker_host, false, ""};
    }
    const std::string standard = standard_socket(inputs);
    if (inputs.mode == ServiceMode::kNever || accepts(standard)) {
      return {kUnixScheme + standard, false, ""};
    }
  }
  const std::string path = private_socket(inputs);
  return {kUnixScheme + path, true, path};
}

std::optional<ServiceMode> parse_service_mode(const std::string& text) {
  if (text == "auto") return ServiceMode::kAuto;
  if (text == "never") return ServiceMode::kNever;
  if (text == "always") return ServiceMode::kAlways;
  return std::nullopt;
}

}  // namespace vc::podman
