// backend_option_decls.h — the command-line options every container backend plugin declares
// (image, limits, hardening, create overrides, engine timeout), so that a computer is
// configured the same way whichever engine runs it. Each plugin adds its address option in
// front (--docker-host, --podman-socket). parse_backend_options() reads them all.
//
// Static data, valid for the life of the module; any thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

#include <vc-backend-1/cpp/plugin_entry.h>

#include "backend_options.h"

namespace vc::container {

inline constexpr vc_option_decl kImageOption = sdk::option(
    VC_OPTION_STRING, "image",
    "Image new computers are created from. The default, the bundled Xfce desktop "
    "image, is built on first use (one to three minutes); debian:bookworm-slim gives "
    "headless computers. Other images need --tool-instruction-override describing them",
    {.default_value = kDefaultImage});

inline constexpr vc_option_decl kCpuOption = sdk::option(
    VC_OPTION_NUMBER, "cpu",
    "CPU limit of new computers, in CPUs (e.g. 1.5); default: no limit");

inline constexpr vc_option_decl kMemoryOption = sdk::option(
    VC_OPTION_STRING, "memory",
    "Memory limit of new computers (e.g. 512m, 2g); default: no limit");

inline constexpr vc_option_decl kPidsLimitOption = sdk::option(
    VC_OPTION_INTEGER, "pids-limit",
    "Most processes a new computer may run at once; default: no limit");

inline constexpr vc_option_decl kHardenOption = sdk::option(
    VC_OPTION_BOOL, "harden",
    "Create computers with every capability dropped except CHOWN, DAC_OVERRIDE, "
    "FOWNER, FSETID, KILL, SETGID and SETUID, and with no-new-privileges. Breaks sudo, "
    "su and other setuid programs, ping, binding ports below 1024, chroot and mknod "
    "(see plugins/docker/README.md)",
    {.default_value = "false"});

inline constexpr vc_option_decl kCreateOverridesOption = sdk::option(
    VC_OPTION_STRING, "create-overrides",
    "JSON object merged into the Engine API container create request of new "
    "computers, e.g. '{\"HostConfig\":{\"ShmSize\":268435456}}' (replaces the "
    "original's --docker-run-flag)");

inline constexpr vc_option_decl kEngineTimeoutOption = sdk::option(
    VC_OPTION_INTEGER, "engine-timeout",
    "Seconds an ordinary engine call may take (image pulls and commands are not "
    "limited by it)",
    {.default_value = "30"});

inline constexpr vc_option_decl kDesktopImageContextOption = sdk::option(
    VC_OPTION_STRING, "desktop-image-context",
    "Folder to build the bundled desktop image from (default: the desktop-image folder "
    "installed beside this plugin)");

inline constexpr vc_option_decl kExecAgentOption = sdk::option(
    VC_OPTION_STRING, "exec-agent",
    "How commands reach a computer: auto runs them through the small exec agent the "
    "plugin puts in each computer (a few milliseconds a command) and falls back to the "
    "engine's exec where it cannot run; on fails instead of falling back; off always "
    "uses the engine's exec (docs/exec-agent.md)",
    {.default_value = "auto"});

inline constexpr vc_option_decl kExecAgentBinaryOption = sdk::option(
    VC_OPTION_STRING, "exec-agent-binary",
    "The exec agent program copied into computers (default: exec-agent/vc-exec-agent "
    "installed beside this plugin)");

inline constexpr vc_option_decl kMaxCheckpointsOption = sdk::option(
    VC_OPTION_INTEGER, "max-checkpoints",
    "Most checkpoints one computer may keep (1-100); creating one more is refused until one "
    "is deleted",
    {.default_value = "20"});

inline constexpr vc_option_decl kMountOption = sdk::option(
    VC_OPTION_STRING_LIST, "mount",
    "Host folder mounted into every new computer, HOST_PATH:COMPUTER_PATH[:ro|rw] (rw by "
    "default; repeatable). The host path must be an existing folder and not a system folder; "
    "reset never touches it (docs/mounts.md)");

inline constexpr vc_option_decl kMountOwnerOption = sdk::option(
    VC_OPTION_STRING, "mount-owner",
    "UID:GID that files the computer makes in read-write mounts belong to on the host "
    "(default: the user who started the server)");

// The options above in the order --help lists them. A new shared option is added here once and
// every container plugin declares it.
inline constexpr std::array kSharedOptions = {&kImageOption,
                                              &kCpuOption,
                                              &kMemoryOption,
                                              &kPidsLimitOption,
                                              &kHardenOption,
                                              &kCreateOverridesOption,
                                              &kEngineTimeoutOption,
                                              &kDesktopImageContextOption,
                                              &kExecAgentOption,
                                              &kExecAgentBinaryOption,
                                              &kMaxCheckpointsOption,
                                              &kMountOption,
                                              &kMountOwnerOption};

// A plugin's option list for its descriptor: its own options (the engine address) first, then
// kSharedOptions, then the nullptr that ends the list. Evaluated at compile time.
template <std::size_t N>
constexpr std::array<const vc_option_decl*, N + kSharedOptions.size() + 1>
container_plugin_options(std::array<const vc_option_decl*, N> own) {
  std::array<const vc_option_decl*, N + kSharedOptions.size() + 1> all{};
  std::copy(own.begin(), own.end(), all.begin());
  std::copy(kSharedOptions.begin(), kSharedOptions.end(), all.begin() + N);
  all.back() = nullptr;
  return all;
}

}  // namespace vc::container
