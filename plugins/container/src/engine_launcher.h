// engine_launcher.h — an engine the plugin may start itself when none answers.
//
// Podman's API service is a process that anyone may start; a plugin that finds no running
// service starts a private one and stops it when the backend is destroyed. Docker's daemon is
// system-wide and never started by a plugin, so the Docker plugin has no launcher.
#pragma once

#include <string>

namespace vc::container {

class EngineLauncher {
 public:
  virtual ~EngineLauncher() = default;

  // [engine loop] Called by the first validate, before the engine is contacted. Starts the
  // engine serving at the backend's address and returns once it accepts connections, or
  // returns false with a message a user can act on. Blocks the engine loop (never the host's)
  // for as long as the engine takes to start, bounded by the launcher.
  virtual bool start(std::string& message) = 0;

  // [host loop] Called by destroy() after the engine loop stopped: stops what start()
  // started, if anything. Never throws.
  virtual void stop() noexcept = 0;
};

}  // namespace vc::container
