// computer_types.cpp — reading and writing computer info documents.
#include "computers/computer_types.h"

#include <stdexcept>
#include <string>

namespace vc::computers {
namespace {

// The field's value, or nullptr when it is absent or null (both mean "not reported").
const Json* reported(const Json& doc, const char* name) {
  auto it = doc.find(name);
  if (it == doc.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void wrong_type(const char* name, const char* expected) {
  throw std::invalid_argument(std::string("computer info field \"") + name + "\" must be " +
                              expected);
}

void read_string(const Json& doc, const char* name, std::string& out) {
  const Json* value = reported(doc, name);
  if (value == nullptr) return;
  if (!value->is_string()) wrong_type(name, "a string");
  out = value->get<std::string>();
}

void read_optional_string(const Json& doc, const char* name, std::optional<std::string>& out) {
  const Json* value = reported(doc, name);
  if (value == nullptr) return;
  if (!value->is_string()) wrong_type(name, "a string or null");
  out = value->get<std::string>();
}

void read_bool(const Json& doc, const char* name, bool& out) {
  const Json* value = reported(doc, name);
  if (value == nullptr) return;
  if (!value->is_boolean()) wrong_type(name, "a boolean");
  out = value->get<bool>();
}

void read_mounts(const Json& doc, std::vector<ComputerMount>& out) {
  const Json* value = reported(doc, "mounts");
  if (value == nullptr) return;
  if (!value->is_array()) wrong_type("mounts", "an array");
  for (const auto& item : *value) {
    if (!item.is_object()) wrong_type("mounts", "an array of objects");
    ComputerMount mount;
    read_string(item, "host_path", mount.host_path);
    read_string(item, "computer_path", mount.computer_path);
    read_bool(item, "read_only", mount.read_only);
    out.push_back(std::move(mount));
  }
}

Json optional_to_json(const std::optional<std::string>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

ComputerInfo ComputerInfo::from_json(const Json& doc) {
  if (!doc.is_object()) throw std::invalid_argument("computer info must be a JSON object");
  if (reported(doc, "computer_id") == nullptr) {
    throw std::invalid_argument("computer info lacks \"computer_id\"");
  }
  ComputerInfo info;
  read_string(doc, "computer_id", info.computer_id);
  read_string(doc, "sandbox_id", info.sandbox_id);
  read_string(doc, "state", info.state);
  read_bool(doc, "temporary", info.temporary);
  read_optional_string(doc, "image", info.image);
  read_optional_string(doc, "created_at", info.created_at);
  read_bool(doc, "network_access", info.network_access);
  read_bool(doc, "desktop_environment", info.desktop_environment);
  read_optional_string(doc, "desktop_url", info.desktop_url);
  read_optional_string(doc, "persistence", info.persistence);
  read_optional_string(doc, "network_enforcement", info.network_enforcement);
  read_mounts(doc, info.mounts);
  return info;
}

Json ComputerInfo::to_json() const {
  Json doc = Json::object();
  doc["computer_id"] = computer_id;
  doc["sandbox_id"] = sandbox_id;
  doc["state"] = state;
  doc["temporary"] = temporary;
  doc["image"] = optional_to_json(image);
  doc["created_at"] = optional_to_json(created_at);
  doc["network_access"] = network_access;
  doc["desktop_environment"] = desktop_environment;
  doc["desktop_url"] = optional_to_json(desktop_url);
  if (persistence) doc["persistence"] = *persistence;
  if (network_enforcement) doc["network_enforcement"] = *network_enforcement;
  if (!mounts.empty()) doc["mounts"] = mounts_json();
  return doc;
}

Json ComputerInfo::mounts_json() const {
  Json list = Json::array();
  for (const auto& mount : mounts) {
    list.push_back(Json{{"host_path", mount.host_path},
                        {"computer_path", mount.computer_path},
                        {"read_only", mount.read_only}});
  }
  return list;
}

Json ComputerInfo::to_listing_json(const std::string& backend) const {
  const Json fields = to_json();
  Json doc = Json::object();
  for (const auto& field : fields.items()) {
    doc[field.key()] = field.value();
    if (field.key() == "sandbox_id") doc["backend"] = backend;
  }
  return doc;
}

}  // namespace vc::computers
