// computer_info.cpp — mapping engine container documents onto computer info.
#include "computer_info.h"

#include <cstdio>
#include <ctime>

#include "computer_naming.h"
#include "desktop_access.h"
#include "host_mounts.h"

namespace vc::container {
namespace {

const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json null_value;
  if (!object.is_object()) return null_value;
  auto it = object.find(key);
  return it == object.end() ? null_value : *it;
}

std::string string_member(const nlohmann::json& object, const char* key) {
  const auto& value = member(object, key);
  return value.is_string() ? value.get<std::string>() : std::string();
}

std::optional<std::string> label(const nlohmann::json& container, const char* key) {
  const auto& value = member(container_labels(container), key);
  if (!value.is_string()) return std::nullopt;
  return value.get<std::string>();
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// True when text[at, at+count) are all digits.
bool digits_at(std::string_view text, std::size_t at, std::size_t count) {
  if (text.size() < at + count) return false;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!is_digit(text[i])) return false;
  }
  return true;
}

nlohmann::json basic_info(const std::string& computer_id, const std::string& container_id,
                             const std::string& state, bool temporary, const std::string& image,
                             const std::optional<std::string>& created_at, bool network_access) {
  return {
      {"computer_id", computer_id},
      {"sandbox_id", short_container_id(container_id)},
      {"state", state},
      {"temporary", temporary},
      {"image", image},
      {"created_at", created_at ? nlohmann::json(*created_at) : nlohmann::json(nullptr)},
      {"network_access", network_access},
      {"desktop_environment", false},
      {"desktop_url", nullptr},
  };
}

// A desktop computer keeps its network attachment; its switch is the firewall record. Its
// desktop is on only while it runs.
void apply_desktop_facts(const nlohmann::json& container, const DesktopFacts& desktop,
                         nlohmann::json& info) {
  if (!is_desktop_capable(container)) return;
  info["network_access"] = !desktop.network_blocked;
  bool enabled = desktop.enabled.value_or(label(container, labels::kDesktop).value_or("false") ==
                                          "true");
  info["desktop_environment"] = enabled && is_running(container);
}

}  // namespace

const nlohmann::json& container_labels(const nlohmann::json& container) {
  static const nlohmann::json empty = nlohmann::json::object();
  // Inspect documents keep labels under Config; list rows at the top.
  const auto& config_labels = member(member(container, "Config"), "Labels");
  if (config_labels.is_object()) return config_labels;
  const auto& row_labels = member(container, "Labels");
  if (row_labels.is_object()) return row_labels;
  return empty;
}

std::optional<std::string> labelled_computer_id(const nlohmann::json& container) {
  return label(container, labels::kComputerId);
}

bool is_owned_by(const nlohmann::json& container, std::string_view computer_id) {
  auto owner = labelled_computer_id(container);
  return owner.has_value() && *owner == computer_id;
}

std::vector<std::string> attached_networks(const nlohmann::json& container) {
  std::vector<std::string> names;
  const auto& networks = member(member(container, "NetworkSettings"), "Networks");
  if (!networks.is_object()) return names;
  for (const auto& [name, endpoint] : networks.items()) names.push_back(name);
  return names;
}

bool has_network_access(const std::vector<std::string>& networks) {
  for (const auto& name : networks) {
    if (name != "none") return true;
  }
  return false;
}

bool is_running(const nlohmann::json& container) {
  const auto& state = member(container, "State");
  if (state.is_object()) {
    const auto& running = member(state, "Running");
    return running.is_boolean() && running.get<bool>();
  }
  return state.is_string() && state.get<std::string>() == "running";
}

std::string computer_state(std::string_view engine_status) {
  if (engine_status.empty()) return "unknown";
  if (engine_status == "exited") return "stopped";
  return std::string(engine_status);
}

std::optional<std::string> normalise_timestamp(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS
  if (!digits_at(text, 0, 4) || text[4] != '-' || !digits_at(text, 5, 2) || text[7] != '-' ||
      !digits_at(text, 8, 2) || (text[10] != 'T' && text[10] != 't') || !digits_at(text, 11, 2) ||
      text[13] != ':' || !digits_at(text, 14, 2) || text[16] != ':' || !digits_at(text, 17, 2)) {
    return std::nullopt;
  }
  if (text.substr(0, 4) == "0001") return std::nullopt;  // Go's zero time: "never"
  std::size_t rest = 19;
  if (rest < text.size() && text[rest] == '.') {
    ++rest;
    while (rest < text.size() && is_digit(text[rest])) ++rest;
  }
  std::string_view zone = text.substr(rest);
  std::string base(text.substr(0, 19));
  base[10] = 'T';
  if (zone == "Z" || zone == "z" || zone == "+00:00" || zone == "-00:00") return base + "Z";
  // Another offset: keep the original, which is valid RFC 3339 already.
  if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digits_at(zone, 1, 2) &&
      zone[3] == ':' && digits_at(zone, 4, 2)) {
    return std::string(text);
  }
  return std::nullopt;
}

std::string timestamp_from_unix_seconds(std::int64_t seconds) {
  std::time_t time = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&time, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

nlohmann::json computer_info_from_inspect(const nlohmann::json& inspect,
                                          std::string_view fallback_image,
                                          const DesktopFacts& desktop) {
  std::string computer_id = labelled_computer_id(inspect).value_or("");
  std::string image = label(inspect, labels::kImage)
                          .value_or(string_member(member(inspect, "Config"), "Image"));
  if (image.empty()) image = std::string(fallback_image);
  // The original treats a container without the label as temporary (docs/compatibility.md,
  // "Names and labels").
  bool temporary = label(inspect, labels::kTemporary).value_or("true") == "true";
  std::string status = string_member(member(inspect, "State"), "Status");
  nlohmann::json info =
      basic_info(computer_id, string_member(inspect, "Id"), computer_state(status), temporary,
                 image, normalise_timestamp(string_member(inspect, "Created")),
                 has_network_access(attached_networks(inspect)));
  apply_desktop_facts(inspect, desktop, info);
  if (auto mounts = label(inspect, labels::kMounts); mounts && !mounts->empty()) {
    info["mounts"] = mounts_info(mounts_from_label(*mounts));
  }
  if (info["desktop_environment"].get<bool>()) {
    auto url = desktop_view_url(inspect);
    if (url) info["desktop_url"] = *url;
  }
  return info;
}

std::optional<nlohmann::json> computer_info_from_list_row(const nlohmann::json& row,
                                                          std::string_view fallback_image,
                                                          const DesktopFacts& desktop) {
  auto computer_id = labelled_computer_id(row);
  if (!computer_id) return std::nullopt;
  std::string image = label(row, labels::kImage).value_or(string_member(row, "Image"));
  if (image.empty()) image = std::string(fallback_image);
  bool temporary = label(row, labels::kTemporary).value_or("true") == "true";
  const auto& created = member(row, "Created");
  std::optional<std::string> created_at;
  if (created.is_number_integer()) created_at = timestamp_from_unix_seconds(created.get<std::int64_t>());
  nlohmann::json info = basic_info(*computer_id, string_member(row, "Id"),
                                   computer_state(string_member(row, "State")), temporary, image,
                                   created_at, has_network_access(attached_networks(row)));
  apply_desktop_facts(row, desktop, info);
  if (auto mounts = label(row, labels::kMounts); mounts && !mounts->empty()) {
    info["mounts"] = mounts_info(mounts_from_label(*mounts));
  }
  return info;
}

}  // namespace vc::container
