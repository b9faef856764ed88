// host_mounts.cpp — checking, recording and applying the host folders mounted into a computer.
#include "host_mounts.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <set>

namespace vc::container {
namespace {

// Joins the parts (no "literal" + std::string: GCC 12's -Wrestrict at -O2 warns about those).
std::string mount_text(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (std::string_view part : parts) text.append(part);
  return text;
}

constexpr std::string_view kEntryExample = "e.g. /home/me/project:/workspace/project:rw";

// Folders of the host that are never mounted (exactly, or anything inside them).
constexpr std::string_view kSystemFolders[] = {"/etc", "/usr", "/bin", "/sbin", "/boot", "/dev",
                                               "/proc", "/sys", "/run", "/var/run/docker.sock",
                                               "/var/run/podman", "/lib", "/lib32", "/lib64",
                                               "/libx32"};

// Computer paths that are never mount targets (exactly, or anything inside them).
constexpr std::string_view kReservedComputerPaths[] = {"/proc", "/sys", "/dev"};

bool is_at_or_under(std::string_view path, std::string_view folder) {
  if (folder == "/") return true;
  if (path.substr(0, folder.size()) != folder) return false;
  return path.size() == folder.size() || path[folder.size()] == '/';
}

// "/a/./b/" -> "/a/b"; nullopt for a relative path or one with "..".
std::optional<std::string> normalized_absolute(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::filesystem::path p{std::string(path)};
  for (const auto& part : p) {
    if (part == "..") return std::nullopt;
  }
  std::string normal = p.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

std::string entry_text(const HostMount& mount) {
  return mount_text({mount.host_path, ":", mount.computer_path, mount.read_only ? ":ro" : ":rw"});
}

std::optional<unsigned> parse_id(std::string_view text) {
  unsigned value = 0;
  if (text.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string MountOwner::text() const {
  return mount_text({std::to_string(uid), ":", std::to_string(gid)});
}

std::optional<HostMount> parse_mount_entry(std::string_view entry, std::string& error) {
  const std::string quoted = mount_text({"'", entry, "'"});
  auto first = entry.find(':');
  if (first == std::string_view::npos) {
    error = mount_text({"Mount ", quoted, " is not HOST_PATH:COMPUTER_PATH[:ro|rw] (",
                        kEntryExample, ")."});
    return std::nullopt;
  }
  std::string_view host = entry.substr(0, first);
  std::string_view rest = entry.substr(first + 1);
  bool read_only = false;
  if (auto second = rest.find(':'); second != std::string_view::npos) {
    std::string_view mode = rest.substr(second + 1);
    rest = rest.substr(0, second);
    if (mode == "ro") {
      read_only = true;
    } else if (mode != "rw") {
      error = mount_text({"Mount ", quoted, ": the mode must be ro or rw, not '", mode, "' (",
                          kEntryExample, ")."});
      return std::nullopt;
    }
  }
  if (host.empty() || host.front() != '/') {
    error = mount_text({"Mount ", quoted, ": the host path '", host,
                        "' must be an absolute path (", kEntryExample, ")."});
    return std::nullopt;
  }
  auto computer = normalized_absolute(rest);
  if (!computer) {
    error = mount_text({"Mount ", quoted, ": the computer path '", rest,
                        "' must be an absolute path without '..' (", kEntryExample, ")."});
    return std::nullopt;
  }
  if (*computer == "/") {
    error = mount_text({"Mount ", quoted,
                        ": the computer path cannot be / (the computer's own files); pick a "
                        "folder such as /workspace/project."});
    return std::nullopt;
  }
  for (std::string_view reserved : kReservedComputerPaths) {
    if (is_at_or_under(*computer, reserved)) {
      error = mount_text({"Mount ", quoted, ": the computer path cannot be ", reserved,
                          " or inside it (the system's own files there); pick a folder such as "
                          "/workspace/project."});
      return std::nullopt;
    }
  }
  return HostMount{std::string(host), std::move(*computer), read_only};
}

std::optional<std::vector<HostMount>> parse_mount_list(const nlohmann::json& list,
                                                       std::string& error) {
  std::vector<HostMount> mounts;
  if (list.is_null()) return mounts;
  if (!list.is_array()) {
    error = "mounts must be an array of \"HOST_PATH:COMPUTER_PATH[:ro|rw]\" strings or of "
            "{\"host_path\",\"computer_path\",\"read_only\"} objects.";
    return std::nullopt;
  }
  for (const auto& item : list) {
    std::string entry;
    if (item.is_string()) {
      entry = item.get<std::string>();
    } else if (item.is_object() && item.contains("host_path") && item["host_path"].is_string() &&
               item.contains("computer_path") && item["computer_path"].is_string() &&
               (!item.contains("read_only") || item["read_only"].is_boolean())) {
      entry = mount_text({item["host_path"].get<std::string>(), ":",
                          item["computer_path"].get<std::string>(),
                          item.value("read_only", false) ? ":ro" : ":rw"});
    } else {
      error = mount_text({"Mount ", item.dump(),
                          " is neither a \"HOST_PATH:COMPUTER_PATH[:ro|rw]\" string nor an "
                          "object with string host_path and computer_path (and an optional "
                          "boolean read_only)."});
      return std::nullopt;
    }
    auto parsed = parse_mount_entry(entry, error);
    if (!parsed) return std::nullopt;
    mounts.push_back(std::move(*parsed));
  }
  error = check_computer_paths(mounts);
  if (!error.empty()) return std::nullopt;
  return mounts;
}

std::optional<MountOwner> parse_mount_owner(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto uid = parse_id(text.substr(0, colon));
  auto gid = parse_id(text.substr(colon + 1));
  if (!uid || !gid) return std::nullopt;
  return MountOwner{*uid, *gid};
}

std::string check_computer_paths(const std::vector<HostMount>& mounts) {
  std::set<std::string> seen;
  for (const auto& mount : mounts) {
    if (!seen.insert(mount.computer_path).second) {
      return mount_text({"Mount '", entry_text(mount), "': another mount already uses ",
                         mount.computer_path, " in the computer; each computer path can be "
                         "mounted once."});
    }
  }
  return {};
}

std::string check_host_folders(std::vector<HostMount>& mounts,
                               const std::string& engine_data_root) {
  for (auto& mount : mounts) {
    const std::string quoted = mount_text({"'", entry_text(mount), "'"});
    char resolved[PATH_MAX];
    if (::realpath(mount.host_path.c_str(), resolved) == nullptr) {
      const int error_number = errno;
      return mount_text({"Mount ", quoted, ": the host folder ", mount.host_path,
                         error_number == ENOENT ? " does not exist" : " cannot be read (",
                         error_number == ENOENT ? "" : std::strerror(error_number),
                         error_number == ENOENT ? "" : ")",
                         "; create it first or correct the path."});
    }
    const std::string real = resolved;
    struct stat info {};
    if (::stat(real.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      return mount_text({"Mount ", quoted, ": the host path ", mount.host_path,
                         " is not a folder; only folders can be mounted."});
    }
    if (real == "/") {
      return mount_text({"Mount ", quoted,
                         ": the host's root folder / cannot be mounted; mount the project folder "
                         "itself."});
    }
    for (std::string_view system : kSystemFolders) {
      if (is_at_or_under(real, system)) {
        return mount_text({"Mount ", quoted, ": ", real, " is a system folder of the host (",
                           system, "); it cannot be mounted into a computer."});
      }
    }
    if (!engine_data_root.empty() &&
        (is_at_or_under(real, engine_data_root) || is_at_or_under(engine_data_root, real))) {
      return mount_text({"Mount ", quoted, ": ", real, " holds the container engine's own data (",
                         engine_data_root, "); it cannot be mounted into a computer."});
    }
    mount.host_path = real;
  }
  return {};
}

std::string missing_host_folder(const std::vector<HostMount>& mounts, std::string_view action) {
  for (const auto& mount : mounts) {
    struct stat info {};
    if (::stat(mount.host_path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) continue;
    return mount_text({"The host folder ", mount.host_path, " mounted at ", mount.computer_path,
                       " no longer exists, and the engine cannot start the computer without it; "
                       "the computer was not ", action,
                       " (it is as it was). Create the folder again, then retry."});
  }
  return {};
}

nlohmann::json engine_mounts(const std::vector<HostMount>& mounts) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& mount : mounts) {
    list.push_back({{"Type", "bind"},
                    {"Source", mount.host_path},
                    {"Target", mount.computer_path},
                    {"ReadOnly", mount.read_only}});
  }
  return list;
}

std::string mounts_label_value(const std::vector<HostMount>& mounts) {
  return mounts_info(mounts).dump();
}

std::vector<HostMount> mounts_from_label(std::string_view value) {
  std::vector<HostMount> mounts;
  if (value.empty()) return mounts;
  auto list = nlohmann::json::parse(value, nullptr, false);
  if (!list.is_array()) return mounts;
  for (const auto& item : list) {
    if (!item.is_object()) continue;
    auto host = item.find("host_path");
    auto computer = item.find("computer_path");
    if (host == item.end() || computer == item.end() || !host->is_string() ||
        !computer->is_string()) {
      continue;
    }
    mounts.push_back(HostMount{host->get<std::string>(), computer->get<std::string>(),
                               item.value("read_only", false)});
  }
  return mounts;
}

nlohmann::json mounts_info(const std::vector<HostMount>& mounts) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& mount : mounts) {
    list.push_back({{"host_path", mount.host_path},
                    {"computer_path", mount.computer_path},
                    {"read_only", mount.read_only}});
  }
  return list;
}

std::vector<std::string> owner_fixup_argv(const std::vector<HostMount>& mounts, MountOwner owner) {
  if (owner.is_root()) return {};
  std::vector<std::string> argv = {"find"};
  for (const auto& mount : mounts) {
    if (!mount.read_only) argv.push_back(mount.computer_path);
  }
  if (argv.size() == 1) return {};
  for (const char* word : {"-xdev", "(", "-user", "0", "-o", "-group", "0", ")", "-exec", "chown",
                           "-h"}) {
    argv.emplace_back(word);
  }
  argv.push_back(owner.text());
  argv.emplace_back("{}");
  argv.emplace_back("+");
  return argv;
}

}  // namespace vc::container
