// image_ensure.h — making the computer's image available before create.
//
// GET /images/{ref}/json; when the image is missing, POST /images/create (a pull) whose NDJSON
// progress becomes VC_STREAM_PROGRESS events. A failed pull names the image and the engine's
// reason. There is no local build here: for the default Debian image the message says how to
// build it without a registry.
//
// EngineLoop thread only.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "container_calls.h"

namespace vc::container {

// Sends one progress event (a JSON object, schemas/progress_event.json).
using ProgressSink = std::function<void(const nlohmann::json& event)>;

// Completes with {"image":<image>,"action":"present"|"pulled"}.
void run_ensure_image(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      std::string image, ProgressSink progress, Callback<nlohmann::json> done);

// The user-facing sentence for a failed pull of `image` (pure; exposed for tests).
std::string pull_failure_message(std::string_view image, std::string_view reason);

}  // namespace vc::container
