// build_progress.h — reading the NDJSON stream of POST /build (an image build).
//
// Docker's legacy builder reports {"stream":"Step 3/9 : RUN ..."}, Podman's compatible API
// {"stream":"STEP 3/9: RUN ..."}; both send {"error":...,"errorDetail":{...}} on failure while
// the HTTP status stays 200, and {"aux":{"ID":"sha256:..."}} with the result. This class folds
// the lines into steps done out of steps in all (a progress figure that never decreases, the
// SDK's progress rule), keeps the last lines of output for a failure message, and remembers
// the error. Pure; one instance per build, one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vc::container {

class BuildProgress {
 public:
  explicit BuildProgress(std::string image) : image_(std::move(image)) {}

  // Feeds one line. Returns true when a new step began (a progress event is worth sending).
  bool feed(std::string_view line);

  // {"progress":<steps begun - 1>,"total":<steps>,"message":"Building ...: step 3/9 (RUN ...)"};
  // before the first step {"progress":0,"message":"Building ..."}.
  nlohmann::json event() const;

  // The engine's error sentence once an error line arrived.
  const std::optional<std::string>& error() const { return error_; }

  // The last lines of build output (at most 12), for a failure message.
  std::string tail() const;

 private:
  void note_output(std::string_view text);

  std::string image_;
  std::int64_t step_ = 0;
  std::int64_t steps_ = 0;
  std::string instruction_;
  std::optional<std::string> error_;
  std::deque<std::string> tail_;
};

}  // namespace vc::container
