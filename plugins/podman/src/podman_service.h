// podman_service.h — a private `podman system service` that the plugin starts when no Podman
// API socket answers, and stops when the backend is destroyed.
//
// One long-lived child process for the life of the backend, never one per operation. The
// child inherits the host's environment (so CONTAINERS_CONF, and with it the runtime and the
// default ulimits, apply to it), writes its messages to the host's stderr (stdout carries
// MCP), and gets SIGTERM if the thread that started it, the backend's engine loop, goes away
// without stopping it (the host crashed).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "engine_launcher.h"

namespace vc::podman {

class PodmanService final : public container::EngineLauncher {
 public:
  // `socket_path`: where the service will listen (its directory is created, mode 0700).
  // `podman`: the executable, a path or a name looked up on PATH.
  PodmanService(std::string socket_path, std::string podman);
  ~PodmanService() override;

  // [engine loop] Starts the service and waits until its socket accepts connections
  // (about 170 ms), at most kStartTimeout.
  bool start(std::string& message) override;
  // [host loop] SIGTERM, up to kStopTimeout for it to exit, then SIGKILL; removes the socket.
  void stop() noexcept override;

  static constexpr std::chrono::seconds kStartTimeout{20};
  static constexpr std::chrono::seconds kStopTimeout{5};

 private:
  std::string socket_path_;
  std::string podman_;
  pid_t pid_ = -1;
};

// Whether something accepts connections on the unix socket `path` now. connect(2) on a unix
// socket answers at once (it never waits for the network), so this is safe on any thread.
bool unix_socket_accepts(const std::string& path);

// The executable `name` would run: itself when it contains a '/', else the first executable
// match on PATH; empty when there is none.
std::string find_executable(const std::string& name);

}  // namespace vc::podman
