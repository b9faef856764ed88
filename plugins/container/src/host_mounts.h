// host_mounts.h — host folders mounted into a computer (--mount HOST_PATH:COMPUTER_PATH[:ro|rw]).
//
// The entries are checked in two steps: their form when the options (or a create request) are
// read (parse_mount_entry), and the host side right before a container is made
// (check_host_folders: the folder exists, is a folder and is not a system folder or the
// engine's own data). They go into the create document as HostConfig.Mounts binds and into a
// label, so that attach, restart, factory reset and a checkpoint restore find them again.
//
// Ownership (docs/mounts.md): neither engine here can map the computer's root to the host user
// on a bind mount (Docker 20.10 has no per-container idmap; rootful Podman 4.3 refuses
// --userns=keep-id and its idmapped layers fail), so files root makes in a read-write mount are
// handed to the owner (the server's uid:gid or --mount-owner) after each command:
// owner_fixup_argv().
//
// Pure except check_host_folders (reads the host's file system). Any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace vc::container {

struct HostMount {
  std::string host_path;      // absolute, real (symlinks resolved at create time)
  std::string computer_path;  // absolute, normalized
  bool read_only = false;

  bool operator==(const HostMount&) const = default;
};

// Who files made in read-write mounts belong to on the host.
struct MountOwner {
  unsigned uid = 0;
  unsigned gid = 0;
  bool is_root() const { return uid == 0 && gid == 0; }
  std::string text() const;  // "4242:4242"
};

// "HOST:COMPUTER[:ro|rw]" -> HostMount (host path as written, computer path normalized). On a
// bad entry returns nullopt and sets `error` to a sentence naming the entry.
std::optional<HostMount> parse_mount_entry(std::string_view entry, std::string& error);

// A create request's "mounts": [{"host_path","computer_path","read_only"?}, ...] or strings in
// the option's form. nullopt with `error` naming the entry when one is bad.
std::optional<std::vector<HostMount>> parse_mount_list(const nlohmann::json& list,
                                                       std::string& error);

// "UID:GID" (numbers) -> MountOwner; nullopt on anything else.
std::optional<MountOwner> parse_mount_owner(std::string_view text);

// The computer paths are checked again together: no two entries at the same computer path.
// Empty string = fine, otherwise the sentence.
std::string check_computer_paths(const std::vector<HostMount>& mounts);

// The host side of every entry: realpaths host_path in place, refuses a missing path, a file,
// a system folder (/, /etc, /usr, /bin, /sbin, /lib*, /boot, /dev, /proc, /sys, /run,
// /var/run/docker.sock) and the engine's data root (and anything inside it or holding it).
// Empty string = fine, otherwise the sentence naming the entry.
std::string check_host_folders(std::vector<HostMount>& mounts, const std::string& engine_data_root);

// A sentence naming the first mount whose host folder is no longer a folder ("" when all are):
// restart and factory reset check it first, because the engine would not start the computer
// again without it. `action` is what was refused ("restarted", "reset").
std::string missing_host_folder(const std::vector<HostMount>& mounts, std::string_view action);

// HostConfig.Mounts entries (type bind, ReadOnly) for the create document.
nlohmann::json engine_mounts(const std::vector<HostMount>& mounts);

// The label value recording the mounts, and back. A missing or unreadable label is no mounts.
std::string mounts_label_value(const std::vector<HostMount>& mounts);
std::vector<HostMount> mounts_from_label(std::string_view value);

// The computer info's "mounts": [{"host_path","computer_path","read_only"}].
nlohmann::json mounts_info(const std::vector<HostMount>& mounts);

// The command (run as root in the computer) that hands what root made in the read-write mounts
// to `owner`; empty when there is nothing to do (no read-write mount, or the owner is root).
std::vector<std::string> owner_fixup_argv(const std::vector<HostMount>& mounts, MountOwner owner);

}  // namespace vc::container
