// content_catalog.h — the resources, resource templates and prompts a session publishes.
//
// The session answers resources/* and prompts/* from the catalog it was given; without one it
// publishes nothing (and says so correctly). [loop-thread] for every member.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/failure.h"
#include "common/json.h"

namespace vc::mcp {

class ContentCatalog {
 public:
  virtual ~ContentCatalog() = default;

  virtual Json resources() const = 0;           // Resource objects
  virtual Json resource_templates() const = 0;  // ResourceTemplate objects
  // The ReadResourceResult of `uri`, or nullopt when no resource or template matches it.
  virtual std::optional<Json> read_resource(const std::string& uri) const = 0;
  // The same for a resource whose content must be fetched first (a live screenshot): `done`
  // runs once, now or on a later loop turn, with nullopt (no such resource), the result, or a
  // Failure whose message explains why it cannot be read now. The default answers from
  // read_resource().
  using ReadDone = std::function<void(std::optional<Expected<Json>>)>;
  virtual void read_resource_async(const std::string& uri, ReadDone done) const {
    auto contents = read_resource(uri);
    if (!contents) return done(std::nullopt);
    done(Expected<Json>(std::move(*contents)));
  }

  virtual Json prompts() const = 0;  // Prompt objects
  // The GetPromptResult, or a Failure whose message explains a wrong name or arguments.
  virtual Expected<Json> get_prompt(const std::string& name, const Json& arguments) const = 0;
  // The same for a 2026-07-28 request, which may ask its client first: `input_responses` are
  // the client's answers of this round (an object; null on the first round). The result may be
  // an input-required result ({"resultType": "input_required", "inputRequests": {...}}). The
  // default serves the prompt as get_prompt() does.
  virtual Expected<Json> get_prompt_in_round(const std::string& name, const Json& arguments,
                                             const Json& input_responses) const {
    (void)input_responses;
    return get_prompt(name, arguments);
  }

  // Completion values for `argument` of the prompt or template `ref` (empty when none).
  virtual Json complete(const Json& ref, const std::string& argument, const std::string& value) const = 0;
};

}  // namespace vc::mcp
