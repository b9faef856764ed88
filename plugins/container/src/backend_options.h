// backend_options.h — the plugin's command-line options, parsed and checked.
//
// The host hands create_backend() {"options":{"<name>":<value>,...}} with every declared option
// present (null when unset without default). This file turns that into BackendOptions and
// refuses bad values with a sentence that names the option and shows a valid example. Pure:
// no I/O, so create_backend() stays instant; the engine is first contacted by validate.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/requests.h>

#include "host_mounts.h"

namespace vc::container {

// Option names, as users type them after "--". The address option is per engine
// ("docker-host"); the rest are shared by every container engine plugin.
namespace option_names {
inline constexpr const char* kImage = "image";
inline constexpr const char* kCpu = "cpu";
inline constexpr const char* kMemory = "memory";
inline constexpr const char* kPidsLimit = "pids-limit";
inline constexpr const char* kHarden = "harden";
inline constexpr const char* kCreateOverrides = "create-overrides";
inline constexpr const char* kEngineTimeout = "engine-timeout";
inline constexpr const char* kDesktopImageContext = "desktop-image-context";
inline constexpr const char* kExecAgent = "exec-agent";
inline constexpr const char* kExecAgentBinary = "exec-agent-binary";
inline constexpr const char* kMaxCheckpoints = "max-checkpoints";
inline constexpr const char* kMount = "mount";
inline constexpr const char* kMountOwner = "mount-owner";
}  // namespace option_names

// Defaults (the textual forms are what --help shows).
// The bundled desktop image (desktop_image.h), as in the original: desktop-capable computers,
// Xfce off unless DESKTOP_ENVIRONMENT=true. --image debian:bookworm-slim gives headless ones.
inline constexpr const char* kDefaultImage = "mcp-virtual-computer-desktop:bookworm";
inline constexpr std::int64_t kDefaultEngineTimeoutSeconds = 30;
// Docker refuses smaller memory limits at create time; checking here gives a clearer message.
inline constexpr std::int64_t kMinimumMemoryBytes = 6 * 1024 * 1024;
// Checkpoints one computer may keep, by default and at most.
inline constexpr std::int64_t kDefaultMaxCheckpoints = 20;
inline constexpr std::int64_t kMaxCheckpointsCeiling = 100;

// How commands reach a computer (docs/exec-agent.md): through the in-computer exec agent,
// falling back to the engine's exec where it cannot run (auto); the agent or an error (on);
// the engine's exec only (off).
enum class ExecAgentMode { kAuto, kOn, kOff };

// The uid:gid of this process.
MountOwner server_user();

struct BackendOptions {
  std::string engine_address;  // as given (parsed and checked by parse_backend_options)
  std::string image = kDefaultImage;
  std::optional<double> cpus;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> pids_limit;
  bool harden = false;
  // A JSON object merged into every create request, or null.
  nlohmann::json create_overrides;
  std::chrono::milliseconds engine_timeout{std::chrono::seconds(kDefaultEngineTimeoutSeconds)};
  // Where the desktop image's build context is; empty = beside the plugin file.
  std::string desktop_image_context;
  ExecAgentMode exec_agent = ExecAgentMode::kAuto;
  // The agent program copied into computers; empty = the one installed beside the plugin.
  std::string exec_agent_binary;
  // Checkpoints one computer may keep (the checkpoints extension).
  std::int64_t max_checkpoints = kDefaultMaxCheckpoints;
  // Host folders every new computer gets (--mount, docs/mounts.md); their host side is checked
  // when a computer is created.
  std::vector<HostMount> mounts;
  // Who files made in read-write mounts belong to (--mount-owner; default: this process's
  // uid:gid, the user who started the server).
  MountOwner mount_owner = server_user();
};

// Parses the create_backend() config. `address_option` is the engine address option's name
// ("docker-host") and `default_address` its fallback. On failure returns nullopt and sets
// `error` to an actionable sentence naming the option. Any thread.
std::optional<BackendOptions> parse_backend_options(const nlohmann::json& config,
                                                    std::string_view address_option,
                                                    std::string_view default_address,
                                                    std::string& error);

// "512m" -> 536870912: the SDK's memory sizes (resources.memory of a create request), which are
// what `docker run --memory` takes too.
using sdk::parse_memory_size;

}  // namespace vc::container
