// desktop_access.h — how a person reaches a desktop computer's screen: the published port of
// its WebSocket bridge, the secret that opens it, and the URL that carries both.
//
// Every desktop computer gets its own secret at creation (generate_desktop_token(), from the
// kernel's CSPRNG), handed to the container in its environment; the bridge inside refuses any
// connection that does not carry it, so neither another container on the same network nor
// another local user can watch or drive the desktop without the URL. The bridge port is
// published on 127.0.0.1 only, on a port the engine picks at every start: the URL is read
// again from each fresh inspect document. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace vc::container {

// The bridge's port inside the computer (noVNC's files and the WebSocket), and its key in the
// engine's port map.
inline constexpr int kDesktopBridgePort = 6080;
inline constexpr const char* kDesktopBridgePortKey = "6080/tcp";
// Environment of a desktop computer: the secret, and the Xfce mode its supervisor starts in
// when it has no marker yet (its first start).
inline constexpr const char* kDesktopTokenEnv = "VC_DESKTOP_TOKEN";
inline constexpr const char* kDesktopModeEnv = "DESKTOP_ENVIRONMENT";

// 48 hex digits (24 random bytes). Throws std::runtime_error when the kernel has no entropy
// source to give (never on Linux >= 3.17).
std::string generate_desktop_token();

// True when the container was made from the bundled desktop image (its label says so).
bool is_desktop_capable(const nlohmann::json& container);

// The host port the bridge is published on (NetworkSettings.Ports), nullopt when none is
// (stopped, or not a desktop computer).
std::optional<int> published_desktop_port(const nlohmann::json& inspect);

// The secret from the container's environment (Config.Env).
std::optional<std::string> desktop_token_of(const nlohmann::json& inspect);

// "http://127.0.0.1:<port>/vnc.html#autoconnect=1&resize=scale&reconnect=1&path=websockify%3Ftoken%3D<secret>":
// opens the live desktop in a browser. The secret travels in the fragment, which browsers never
// send to a server. nullopt without a published port or a secret.
std::optional<std::string> desktop_view_url(const nlohmann::json& inspect);

}  // namespace vc::container
