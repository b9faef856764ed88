// computer_naming.h — how a computer_id becomes an engine object: the container name, the
// labels that mark a container as ours, and the short id users see.
//
// These names are the compatibility contract with computers created by earlier versions of
// the server (docs/compatibility.md, "Names and labels"): a container is found again after a
// host restart only by its name and
// recognised as ours only by its labels, so none of them may change.
#pragma once

#include <string>
#include <string_view>

#include <vc-backend-1/cpp/computer_id.h>

namespace vc::container {

// Prefix of every container name: kilntainer-<computer_id> (singular, as the original).
inline constexpr std::string_view kContainerNamePrefix = "kilntainer-";

// The labels put on every container at create time (the first six as the original's).
namespace labels {
inline constexpr const char* kOwned = "kilntainers";                        // "true"
inline constexpr const char* kComputerId = "kilntainers.computer-id";        // the slug
inline constexpr const char* kTemporary = "kilntainers.temporary";           // "true"/"false"
inline constexpr const char* kImage = "kilntainers.image";                   // as requested
inline constexpr const char* kDesktop = "mcp-virtual-computer.desktop";      // mode at creation
inline constexpr const char* kWorkspace = "mcp-virtual-computer.workspace";  // e.g. /workspace
// "true" on a computer made from the bundled desktop image: it runs the desktop supervisor,
// publishes the desktop view and switches Xfce and its network in place.
inline constexpr const char* kDesktopCapable = "mcp-virtual-computer.desktop-capable";
// On a computer made from a checkpoint (restore, fork): its own tag of that image, deleted with
// the container (checkpoint_images.h). Absent or empty otherwise.
inline constexpr const char* kBaseImage = "mcp-virtual-computer.base-image";
// The host folders mounted into the computer, a JSON array of {"host_path","computer_path",
// "read_only"} (host_mounts.h), and the uid:gid files made in them are handed to. Absent when
// the computer has no mounts.
inline constexpr const char* kMounts = "mcp-virtual-computer.mounts";
inline constexpr const char* kMountOwner = "mcp-virtual-computer.mount-owner";
// On the short-lived firewall helper containers (never on a computer): the computer served.
inline constexpr const char* kFirewallFor = "mcp-virtual-computer.firewall-for";
// On the volume that records "network off" for a desktop computer.
inline constexpr const char* kNetworkOffFor = "mcp-virtual-computer.network-off-for";
}  // namespace labels

// Length of the container id prefix shown to users ("sandbox_id"), as `docker ps` shows it.
inline constexpr std::size_t kShortIdLength = 12;

// The SDK's computer_id rule: the check and the sentence every op answers a bad id with.
using sdk::is_valid_computer_id;
using sdk::kComputerIdRule;

// "kilntainer-<id>". The id must be valid (checked by the caller).
std::string container_name(std::string_view computer_id);

// The first 12 characters of an engine container id (the whole id when shorter).
std::string short_container_id(std::string_view container_id);

}  // namespace vc::container
