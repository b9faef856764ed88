// checkpoint_types.cpp — reading and writing checkpoint info documents; the name rule.
#include "computers/checkpoint_types.h"

#include <stdexcept>

#include <vc-backend-1/cpp/checkpoint_name.h>

#include "common/utf8_repair.h"

namespace vc::computers {
namespace {

// How much of a refused name an error message repeats.
constexpr std::size_t kShownNameLimit = 80;

const Json& required_checkpoint_field(const Json& doc, const char* name) {
  auto it = doc.find(name);
  if (it == doc.end() || it->is_null()) {
    throw std::invalid_argument(std::string("checkpoint info lacks \"") + name + "\"");
  }
  return *it;
}

[[noreturn]] void wrong_checkpoint_field(const char* name, const char* expected) {
  throw std::invalid_argument(std::string("checkpoint info field \"") + name + "\" must be " +
                              expected);
}

std::string required_checkpoint_string(const Json& doc, const char* name) {
  const Json& value = required_checkpoint_field(doc, name);
  if (!value.is_string()) wrong_checkpoint_field(name, "a string");
  return value.get<std::string>();
}

}  // namespace

CheckpointInfo CheckpointInfo::from_json(const Json& doc) {
  if (!doc.is_object()) throw std::invalid_argument("checkpoint info must be a JSON object");
  CheckpointInfo info;
  info.name = required_checkpoint_string(doc, "name");
  info.computer_id = required_checkpoint_string(doc, "computer_id");
  info.created = required_checkpoint_string(doc, "created");
  const Json& size = required_checkpoint_field(doc, "size_bytes");
  if (!size.is_number_unsigned() && !(size.is_number_integer() && size.get<int64_t>() >= 0)) {
    wrong_checkpoint_field("size_bytes", "a non-negative integer");
  }
  info.size_bytes = size.get<uint64_t>();
  const Json& processes = required_checkpoint_field(doc, "processes");
  if (!processes.is_boolean()) wrong_checkpoint_field("processes", "a boolean");
  info.processes = processes.get<bool>();
  auto desktop = doc.find("desktop_environment");
  if (desktop != doc.end() && !desktop->is_null()) {
    if (!desktop->is_boolean()) wrong_checkpoint_field("desktop_environment", "a boolean");
    info.desktop_environment = desktop->get<bool>();
  }
  return info;
}

Json CheckpointInfo::to_json() const {
  Json doc = Json::object();
  doc["name"] = name;
  doc["computer_id"] = computer_id;
  doc["created"] = created;
  doc["size_bytes"] = size_bytes;
  doc["processes"] = processes;
  if (desktop_environment) doc["desktop_environment"] = *desktop_environment;
  return doc;
}

std::optional<std::string> checkpoint_name_problem(std::string_view name) {
  if (sdk::is_valid_checkpoint_name(name)) return std::nullopt;
  std::string shown = utf8_prefix(repair_utf8(name), kShownNameLimit);
  if (shown.size() < name.size()) shown += "...";
  return "'" + shown + "' is not a checkpoint name: " + sdk::kCheckpointNameRule;
}

}  // namespace vc::computers
