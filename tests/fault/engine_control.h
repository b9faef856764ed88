// engine_control.h — stopping and starting a real engine from a fault test.
//
// The engine's API server is the process whose command line names the engine's socket
// (dockerd --host unix:///var/run/docker.sock; podman system service unix:///run/podman/…),
// as the test command's scripts/engines/*-up.sh start them. Stopping sends it SIGTERM and waits
// until it has exited; starting runs the same script the test command runs, which waits until
// the socket answers. EngineOutage makes sure a test that fails half-way still leaves the engine
// running for the tests after it.
#pragma once

#include <sys/types.h>

#include <string>

#include "container_engine.h"

namespace vc::fault {

// The pid of the engine's API server, or 0 when none runs.
pid_t engine_server_pid(const test::ContainerEngine& engine);

// SIGTERM to the API server, then waits (up to 90 s: Docker stops its containers first) until
// it is gone. Returns what went wrong, or an empty string.
std::string stop_engine(const test::ContainerEngine& engine);

// Runs the engine's setup script (scripts/engines/<engine>-up.sh) and returns what went wrong,
// or an empty string once the socket answers.
std::string start_engine(const test::ContainerEngine& engine);

// Stops the engine for as long as it lives, or until restore(); the destructor restarts it.
class EngineOutage {
 public:
  explicit EngineOutage(const test::ContainerEngine& engine);
  ~EngineOutage();
  EngineOutage(const EngineOutage&) = delete;
  EngineOutage& operator=(const EngineOutage&) = delete;

  // Empty when the engine stopped; else why not.
  const std::string& stop_error() const { return stop_error_; }
  // Starts the engine again; empty when it answers.
  std::string restore();

 private:
  const test::ContainerEngine& engine_;
  std::string stop_error_;
  bool restored_ = false;
};

}  // namespace vc::fault
