// engine_profile.h — everything the container backend needs to know about one engine that is
// not the Docker Engine API itself: its name in messages, how "no network" is expressed, and
// the few places where engines behave differently (the "quirks").
//
// The backend logic (container_backend and the flows it runs) is engine-neutral and reads
// these fields instead of testing "is this Docker?". The Docker plugin passes docker_profile();
// a Podman plugin passes its own profile to the same code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace vc::container {

struct EngineProfile {
  // Short engine name: the "engine" of the validate result and the prefix of error detail
  // codes ("docker.image_pull_failed"). Lower case.
  std::string engine_name;
  // How messages name the engine and its objects: "Docker engine", "Docker".
  std::string engine_display_name;
  std::string product_display_name;
  // The hint appended when the engine cannot be reached: "Is dockerd running?".
  std::string daemon_hint;
  // Whether the engine is Podman (its /_ping carries Libpod-Api-Version). validate refuses
  // the other engine: each profile's quirks only hold for its own engine.
  bool is_podman = false;
  // What to tell a user whose address leads to the other engine.
  std::string wrong_engine_hint;

  // The network a computer with network access is connected to ("bridge").
  std::string online_network;
  // The network a computer without access is parked on, or nullopt when "off" means "no
  // network at all". Docker has a `none` network object to connect to; Podman has none (its
  // containers created on `none` can never join a network again), so it leaves the map empty.
  std::optional<std::string> offline_network;

  // Exit codes with which the engine reports that it could not start an exec'd process at
  // all (missing binary or working directory): Docker 126, Podman 127. Used to recognise a
  // missing working directory.
  std::vector<int> exec_start_failure_exit_codes;
};

}  // namespace vc::container
