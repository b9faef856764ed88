// computer_info.h — engine container documents -> the SDK's "computer info" document.
//
// Two engine shapes describe a container: the inspect document (GET /containers/{id}/json,
// labels under Config.Labels, Created as an RFC 3339 string) and a list row (GET
// /containers/json, labels at the top, Created as Unix seconds). Both map onto
// schemas/computer_info.json here. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace vc::container {

// The labels of an inspect document or a list row (an empty object when there are none).
const nlohmann::json& container_labels(const nlohmann::json& container);

// The computer_id label, when the container carries one.
std::optional<std::string> labelled_computer_id(const nlohmann::json& container);

// True when the container is the one this server made for `computer_id`: the ownership check
// that keeps us from adopting (or deleting) a stranger's container that happens to be named
// kilntainer-<id>.
bool is_owned_by(const nlohmann::json& container, std::string_view computer_id);

// The names of the networks the container is attached to right now
// (NetworkSettings.Networks keys; the creation-time HostConfig.NetworkMode is ignored).
std::vector<std::string> attached_networks(const nlohmann::json& container);

// True when any attached network is a real one (anything but `none`).
bool has_network_access(const std::vector<std::string>& networks);

// True when State.Running says so (inspect) or State is "running" (list row).
bool is_running(const nlohmann::json& container);

// The engine's status word mapped onto the SDK's vocabulary: exited -> stopped; created,
// running, paused, restarting, dead and removing pass through; missing -> unknown.
std::string computer_state(std::string_view engine_status);

// "2025-01-31T12:00:00.123456789Z" -> "2025-01-31T12:00:00Z" (whole seconds, UTC). Other
// well-formed RFC 3339 values pass through; nullopt for anything else (including Go's zero
// time "0001-01-01T00:00:00Z").
std::optional<std::string> normalise_timestamp(std::string_view engine_time);
// Unix seconds -> "2025-01-31T12:00:00Z".
std::string timestamp_from_unix_seconds(std::int64_t seconds);

// What an inspect document cannot tell about a desktop computer (desktop_access.h): the live
// Xfce state (read through its supervisor) and its network switch (egress_firewall.h).
struct DesktopFacts {
  std::optional<bool> enabled;  // nullopt: the Xfce mode it was created with
  bool network_blocked = false;
};

// Computer info from an inspect document. `fallback_image` is used when the image label is
// missing. A headless computer's network state is its network attachments and its desktop is
// off; a desktop computer's come from `desktop`, and its desktop_url (while Xfce is on and the
// view is published) from the inspect document.
nlohmann::json computer_info_from_inspect(const nlohmann::json& inspect,
                                          std::string_view fallback_image,
                                          const DesktopFacts& desktop = {});

// Computer info from a list row; nullopt for a row without the computer_id label. A list row
// has no environment, so a desktop computer's desktop_url is null here.
std::optional<nlohmann::json> computer_info_from_list_row(const nlohmann::json& row,
                                                          std::string_view fallback_image,
                                                          const DesktopFacts& desktop = {});

}  // namespace vc::container
