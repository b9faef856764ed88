// mount_request.cpp — checking the host folders a computer_create call asks for.
#include "tools/mount_request.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <vc-backend-1/vc_status.h>

namespace vc::tools {
namespace {

Failure mount_refusal(std::string message) { return Failure{VC_E_INVALID_ARGUMENT, std::move(message)}; }

bool inside_folder(std::string_view path, std::string_view folder) {
  if (folder == "/") return true;
  if (path.substr(0, folder.size()) != folder) return false;
  return path.size() == folder.size() || path[folder.size()] == '/';
}

}  // namespace

Expected<Json> mounts_under_root(const Json& mounts, const std::string& mount_root) {
  if (mounts.is_null() || (mounts.is_array() && mounts.empty())) return Json::array();
  if (mount_root.empty()) {
    return mount_refusal(
        "This server does not let computer_create mount host folders: it was started without "
        "--mount-root, the folder whose contents the operator allows to be mounted.");
  }
  if (!mounts.is_array()) {
    return mount_refusal("mounts must be an array of {\"host_path\", \"computer_path\", "
                         "\"read_only\"} objects.");
  }
  Json accepted = Json::array();
  for (const auto& item : mounts) {
    if (!item.is_object() || !item.contains("host_path") || !item["host_path"].is_string() ||
        !item.contains("computer_path") || !item["computer_path"].is_string() ||
        (item.contains("read_only") && !item["read_only"].is_boolean())) {
      return mount_refusal("Mount " + item.dump() +
                           " needs a string host_path and computer_path (and an optional "
                           "boolean read_only).");
    }
    const std::string host_path = item["host_path"].get<std::string>();
    const std::string named = "Mount of " + host_path + ": ";
    char resolved[PATH_MAX];
    if (host_path.empty() || host_path.front() != '/') {
      return mount_refusal(named + "the host path must be absolute, inside " + mount_root + ".");
    }
    if (::realpath(host_path.c_str(), resolved) == nullptr) {
      const int error_number = errno;
      return mount_refusal(named + (error_number == ENOENT
                                        ? std::string("the host folder does not exist.")
                                        : "the host folder cannot be read (" +
                                              std::string(std::strerror(error_number)) + ")."));
    }
    if (!inside_folder(resolved, mount_root)) {
      return mount_refusal(named + "only folders inside " + mount_root +
                           " (this server's --mount-root) can be mounted; " + resolved +
                           " is outside it.");
    }
    accepted.push_back(Json{{"host_path", std::string(resolved)},
                            {"computer_path", item["computer_path"]},
                            {"read_only", item.value("read_only", false)}});
  }
  return accepted;
}

}  // namespace vc::tools
