// image_ensure.cpp — image inspect, pull with progress, and the pull failure message.
#include "image_ensure.h"

#include <chrono>
#include <memory>
#include <utility>

#include <vc_engine/url.h>

#include "image_reference.h"
#include "pull_progress.h"
#include "tool_instructions.h"

namespace vc::container {
namespace {

// Progress events go out at most this often (a pull reports every few kilobytes).
constexpr std::chrono::milliseconds kProgressInterval{250};

class ImagePull : public std::enable_shared_from_this<ImagePull> {
 public:
  ImagePull(BackendContext& ctx, std::shared_ptr<CancelScope> scope, std::string image,
            ProgressSink progress, Callback<nlohmann::json> done)
      : ctx_(ctx), scope_(std::move(scope)), image_(std::move(image)),
        progress_sink_(std::move(progress)), done_(std::move(done)), progress_(image_) {}

  void run() {
    inspect([self = shared_from_this()](Expected<bool> present) {
      if (!present.ok()) return self->done_(present.failure());
      if (present.value()) {
        // One event even without a pull, so a client that asked for progress sees the step.
        self->send_progress(nlohmann::json{
            {"progress", 1}, {"total", 1}, {"message", "Image " + self->image_ + " is present"}});
        return self->done_(self->result("present"));
      }
      self->pull();
    });
  }

 private:
  void inspect(Callback<bool> done) {
    if (ctx_.shutting_down) return done(cancelled_failure());
    auto handle = ctx_.client.get_json(
        "/images/" + engine::url_encode(image_) + "/json",
        [self = shared_from_this(), done = std::move(done)](engine::Result<engine::JsonResponse> r) {
          if (r.ok()) return done(true);
          if (r.error().kind == engine::EngineErrorKind::kHttpStatus && r.error().http_status == 404) {
            return done(false);
          }
          done(self->ctx_.engine_failure(r.error(), "inspect image '" + self->image_ + "'"));
        },
        ctx_.call_deadlines());
    track_in(scope_, handle);
  }

  void pull() {
    if (ctx_.shutting_down || is_cancelled(scope_)) return done_(cancelled_failure());
    send_progress(nlohmann::json{{"progress", 0}, {"message", "Pulling " + image_}});
    PullTarget target = pull_target(image_);
    engine::HttpRequest request;
    request.method = "POST";
    request.target = engine::query_target("/images/create",
                                          {{"fromImage", target.from_image}, {"tag", target.tag}});
    std::weak_ptr<ImagePull> weak = weak_from_this();
    auto handle = ctx_.client.stream_lines(
        std::move(request),
        [weak](std::string_view line) {
          auto self = weak.lock();
          if (!self) return;
          if (self->progress_.feed(line)) {
            auto now = std::chrono::steady_clock::now();
            if (now - self->last_progress_ >= kProgressInterval) {
              self->last_progress_ = now;
              self->send_progress(self->progress_.event());
            }
          }
        },
        [self = shared_from_this()](engine::Result<int> end) { self->on_pull_end(std::move(end)); });
    track_in(scope_, handle);
  }

  void on_pull_end(engine::Result<int> end) {
    if (!end.ok()) {
      const auto& error = end.error();
      if (error.kind == engine::EngineErrorKind::kHttpStatus) {
        return done_(OpFailure{VC_E_NOT_FOUND, pull_failure_message(image_, engine_reason(error)),
                               error_details(ctx_.profile, "image_pull_failed", true,
                                             error.http_status)});
      }
      return done_(ctx_.engine_failure(error, "pull image '" + image_ + "'"));
    }
    if (progress_.error()) {
      return done_(OpFailure{VC_E_NOT_FOUND, pull_failure_message(image_, *progress_.error()),
                             error_details(ctx_.profile, "image_pull_failed", true)});
    }
    // The engine said nothing went wrong; confirm the image is there now.
    inspect([self = shared_from_this()](Expected<bool> present) {
      if (!present.ok()) return self->done_(present.failure());
      if (!present.value()) {
        return self->done_(OpFailure{
            VC_E_NOT_FOUND,
            pull_failure_message(self->image_, "the pull ended but the image is still missing"),
            error_details(self->ctx_.profile, "image_pull_failed", true)});
      }
      auto final_event = self->progress_.event();
      final_event["progress"] = final_event.value("total", final_event["progress"]);
      final_event["message"] = "Pulled " + self->image_;
      self->send_progress(final_event);
      self->done_(self->result("pulled"));
    });
  }

  void send_progress(const nlohmann::json& event) {
    if (progress_sink_) progress_sink_(event);
  }

  nlohmann::json result(const char* action) const {
    return nlohmann::json{{"image", image_}, {"action", action}};
  }

  BackendContext& ctx_;
  std::shared_ptr<CancelScope> scope_;
  std::string image_;
  ProgressSink progress_sink_;
  Callback<nlohmann::json> done_;
  PullProgress progress_;
  std::chrono::steady_clock::time_point last_progress_{};
};

}  // namespace

std::string pull_failure_message(std::string_view image, std::string_view reason) {
  std::string message = "Failed to pull image '" + std::string(image) + "': " +
                        std::string(reason) +
                        ". Check that the image name is correct and the registry is reachable.";
  if (image == kDebianImage) {
    message += " Without a registry, build it locally from Debian's archive: run "
               "scripts/engines/docker-up.sh from the mcp-virtual-computer sources (debootstrap "
               "--variant=minbase bookworm, then an import as debian:bookworm-slim).";
  }
  return message;
}

void run_ensure_image(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      std::string image, ProgressSink progress, Callback<nlohmann::json> done) {
  std::make_shared<ImagePull>(ctx, scope, std::move(image), std::move(progress), std::move(done))
      ->run();
}

}  // namespace vc::container
