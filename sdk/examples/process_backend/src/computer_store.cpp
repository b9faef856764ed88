// computer_store.cpp — directories as computers.
#include "computer_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <system_error>

#include <vc-backend-1/cpp/computer_id.h>
#include <vc-backend-1/cpp/computer_info.h>

#include "unique_fd.h"

namespace fs = std::filesystem;

namespace vc_process_backend {
namespace {

constexpr const char* kMetadataFile = "computer.json";
constexpr const char* kWorkspaceDir = "workspace";

std::string now_rfc3339() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Plain POSIX file I/O because iostreams open files without O_CLOEXEC, and a descriptor
// inherited by a child the host spawns at the same moment would leak into it.
bool write_file(const fs::path& path, const std::string& content) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd) return false;
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string read_file(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::string content;
  if (!fd) return content;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  return content;
}

OpResult io_error(const std::string& what, const fs::path& path, const std::error_code& ec) {
  return OpResult::error(VC_E_FAILED, "Cannot " + what + " " + path.string() + ": " + ec.message(),
                         {{"code", "process.io_error"}, {"retryable", false}});
}

OpResult not_found(const std::string& computer_id) {
  return OpResult::error(VC_E_NOT_FOUND, "No computer named " + computer_id + ".");
}

}  // namespace

fs::path ComputerStore::directory(const std::string& computer_id) const {
  return root_ / computer_id;
}

fs::path ComputerStore::workspace(const std::string& computer_id) const {
  return directory(computer_id) / kWorkspaceDir;
}

bool ComputerStore::exists(const std::string& computer_id) const {
  std::error_code ec;
  return fs::is_directory(directory(computer_id), ec);
}

OpResult ComputerStore::check_root() const {
  std::error_code ec;
  fs::create_directories(root_, ec);
  if (ec) return OpResult::error(VC_E_UNAVAILABLE, "Cannot create the scratch root " +
                                                       root_.string() + ": " + ec.message() +
                                                       ". Pass --scratch-root DIR.");
  if (::access(root_.c_str(), W_OK | X_OK) != 0) {
    return OpResult::error(VC_E_PERMISSION,
                           "The scratch root " + root_.string() + " is not writable.");
  }
  return OpResult::ok({{"engine", "host-process"}, {"address", root_.string()}});
}

OpResult ComputerStore::create(const std::string& computer_id, bool temporary,
                               bool adopt_existing) const {
  if (exists(computer_id)) {
    if (adopt_existing) return info(computer_id);
    return OpResult::error(VC_E_ALREADY_EXISTS, "Computer '" + computer_id + "' already exists.");
  }
  return make(computer_id, temporary);
}

OpResult ComputerStore::make(const std::string& computer_id, bool temporary) const {
  std::error_code ec;
  fs::create_directories(workspace(computer_id), ec);
  if (ec) return io_error("create", workspace(computer_id), ec);
  nlohmann::json metadata = {{"created_at", now_rfc3339()}, {"temporary", temporary}};
  if (!write_file(directory(computer_id) / kMetadataFile, metadata.dump() + "\n")) {
    return io_error("write", directory(computer_id) / kMetadataFile,
                    std::error_code(errno, std::generic_category()));
  }
  return OpResult::ok(describe(computer_id));
}

OpResult ComputerStore::info(const std::string& computer_id) const {
  if (!exists(computer_id)) return not_found(computer_id);
  return OpResult::ok(describe(computer_id));
}

OpResult ComputerStore::list() const {
  nlohmann::json computers = nlohmann::json::array();
  std::error_code ec;
  fs::directory_iterator it(root_, ec);
  if (ec) {
    // No root yet simply means no computers yet.
    if (ec == std::errc::no_such_file_or_directory) return OpResult::ok({{"computers", computers}});
    return io_error("read", root_, ec);
  }
  for (const auto& entry : it) {
    std::string name = entry.path().filename().string();
    if (vc::sdk::is_valid_computer_id(name) && entry.is_directory(ec)) {
      computers.push_back(describe(name));
    }
  }
  return OpResult::ok({{"computers", computers}});
}

OpResult ComputerStore::remove(const std::string& computer_id) const {
  std::error_code ec;
  bool existed = exists(computer_id);
  fs::remove_all(directory(computer_id), ec);
  if (ec) return io_error("remove", directory(computer_id), ec);
  return OpResult::ok({{"computer_id", computer_id}, {"removed", existed}});
}

OpResult ComputerStore::factory_reset(const std::string& computer_id) const {
  if (!exists(computer_id)) return not_found(computer_id);
  bool temporary = describe(computer_id).value("temporary", false);
  std::error_code ec;
  fs::remove_all(directory(computer_id), ec);
  if (ec) return io_error("remove", directory(computer_id), ec);
  return make(computer_id, temporary);
}

nlohmann::json ComputerStore::describe(const std::string& computer_id) const {
  auto metadata = nlohmann::json::parse(read_file(directory(computer_id) / kMetadataFile),
                                        nullptr, /*allow_exceptions=*/false);
  if (!metadata.is_object()) metadata = nlohmann::json::object();
  auto created_at = metadata.find("created_at");
  auto temporary = metadata.find("temporary");
  vc::sdk::ComputerInfo info;
  info.computer_id = computer_id;
  info.sandbox_id = directory(computer_id).string();
  info.temporary = temporary != metadata.end() && temporary->is_boolean() && temporary->get<bool>();
  if (created_at != metadata.end() && created_at->is_string()) info.created_at = *created_at;
  // Effective settings: plain host processes always have the host's network and no desktop.
  info.network_access = true;
  info.desktop_environment = false;
  return info.to_json();
}

}  // namespace vc_process_backend
