// image_ensure.h — making the computer's image available before create.
//
// GET /images/{ref}/json; when the image is missing, POST /images/create (a pull) whose NDJSON
// progress becomes VC_STREAM_PROGRESS events. A failed pull names the image and the engine's
// reason; for the Debian image the message says how to make it without a registry.
//
// The bundled desktop image (desktop_image.h) is never pulled: when it is missing, or its
// version label is not this plugin's, it is built through POST /build from the build context
// installed beside the plugin, each build step a progress event. Containers made from an older
// version keep running on their layers; new ones (and factory resets) get the new image.
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

// Completes with {"image":<image>,"action":"present"|"pulled"|"built"}.
void run_ensure_image(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      std::string image, ProgressSink progress, Callback<nlohmann::json> done);

// The user-facing sentence for a failed pull of `image` (pure; exposed for tests).
std::string pull_failure_message(std::string_view image, std::string_view reason);

}  // namespace vc::container
