// pull_progress.cpp — folding pull status lines into a monotonic progress figure.
#include "pull_progress.h"

#include <algorithm>

namespace vc::container {
namespace {

std::uint64_t unsigned_member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return 0;
  auto value = it->get<std::int64_t>();
  return value > 0 ? static_cast<std::uint64_t>(value) : 0;
}

}  // namespace

bool PullProgress::feed(std::string_view line) {
  auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;

  if (auto error = doc.find("error"); error != doc.end() && error->is_string()) {
    error_ = error->get<std::string>();
    return false;
  }
  if (auto detail = doc.find("errorDetail"); detail != doc.end() && detail->is_object()) {
    auto message = detail->find("message");
    if (message != detail->end() && message->is_string()) error_ = message->get<std::string>();
    return false;
  }

  auto id = doc.find("id");
  auto status = doc.find("status");
  if (id == doc.end() || !id->is_string() || status == doc.end() || !status->is_string()) {
    return false;  // "Pulling from ...", "Digest: ...", "Status: ..." lines carry no layer
  }
  const std::string& state = status->get_ref<const std::string&>();
  // The first line names the tag being pulled with the tag as "id"; it is not a layer.
  if (state.rfind("Pulling from", 0) == 0) return false;

  std::size_t layers_before = layers_.size();
  Layer& layer = layers_[id->get<std::string>()];
  const auto& detail = doc.contains("progressDetail") ? doc["progressDetail"] : nlohmann::json();
  if (state == "Downloading") {
    layer.total = std::max(layer.total, unsigned_member(detail, "total"));
    layer.downloaded = std::max(layer.downloaded, unsigned_member(detail, "current"));
  } else if (state == "Download complete" || state == "Verifying Checksum" ||
             state == "Extracting" || state == "Pull complete" || state == "Already exists") {
    layer.downloaded = std::max(layer.downloaded, layer.total);
    if (state == "Pull complete" || state == "Already exists") layer.done = true;
  }

  std::uint64_t downloaded = 0;
  for (const auto& [name, each] : layers_) downloaded += each.downloaded;
  bool changed = layers_.size() != layers_before || downloaded > reported_progress_ ||
                 state == "Pull complete";
  reported_progress_ = std::max(reported_progress_, downloaded);
  return changed;
}

nlohmann::json PullProgress::event() const {
  std::uint64_t total = 0;
  std::size_t done = 0;
  for (const auto& [name, layer] : layers_) {
    total += layer.total;
    if (layer.done) ++done;
  }
  nlohmann::json event = {{"progress", reported_progress_}};
  if (total >= reported_progress_ && total > 0) event["total"] = total;
  event["message"] = "Pulling " + image_ + ": " + std::to_string(done) + " of " +
                     std::to_string(layers_.size()) + " layers done";
  return event;
}

}  // namespace vc::container
