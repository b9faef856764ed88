// pull_progress.h — reading the NDJSON stream of POST /images/create (an image pull).
//
// The engine reports per-layer states ("Pulling fs layer", "Downloading" with byte counts,
// "Download complete", "Pull complete", "Already exists") and, on failure, an
// {"error":...,"errorDetail":{...}} line while the HTTP status stays 200. This class folds the
// lines into one progress figure in bytes that never decreases (the SDK's progress rule) and
// remembers the error. Pure; one instance per pull, one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vc::container {

class PullProgress {
 public:
  explicit PullProgress(std::string image) : image_(std::move(image)) {}

  // Feeds one line. Returns true when the progress figure or the layer count changed, i.e. a
  // new progress event is worth sending.
  bool feed(std::string_view line);

  // The current progress event: {"progress":bytes,"total":bytes?,"message":"Pulling ..."}.
  nlohmann::json event() const;

  // The engine's error sentence once an error line arrived.
  const std::optional<std::string>& error() const { return error_; }

 private:
  struct Layer {
    std::uint64_t total = 0;
    std::uint64_t downloaded = 0;
    bool done = false;
  };

  std::string image_;
  std::map<std::string, Layer> layers_;
  std::uint64_t reported_progress_ = 0;
  std::optional<std::string> error_;
};

}  // namespace vc::container
