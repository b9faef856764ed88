// image_ensure.cpp — image inspect, pull or build with progress, and their failure messages.
#include "image_ensure.h"

#include <chrono>
#include <memory>
#include <utility>

#include <vc_engine/url.h>

#include "build_context.h"
#include "build_progress.h"
#include "desktop_image.h"
#include "image_instructions.h"
#include "image_reference.h"
#include "pull_progress.h"

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
    inspect([self = shared_from_this()](Expected<std::optional<nlohmann::json>> found) {
      if (!found.ok()) return self->done_(found.error());
      if (is_desktop_image(self->image_)) return self->ensure_desktop_image(found.value());
      if (found.value()) {
        // One event even without a pull, so a client that asked for progress sees the step.
        self->send_progress(nlohmann::json{
            {"progress", 1}, {"total", 1}, {"message", "Image " + self->image_ + " is present"}});
        return self->done_(self->result("present"));
      }
      self->pull();
    });
  }

 private:
  // The image's inspect document, nullopt when the engine has no such image.
  void inspect(Callback<std::optional<nlohmann::json>> done) {
    if (ctx_.shutting_down) return done(cancelled_failure());
    auto handle = ctx_.client.get_json(
        "/images/" + engine::url_encode(image_) + "/json",
        [self = shared_from_this(), done = std::move(done)](engine::Result<engine::JsonResponse> r) {
          if (r.ok()) return done(std::optional<nlohmann::json>(std::move(r.value().body)));
          if (r.error().kind == engine::EngineErrorKind::kHttpStatus && r.error().http_status == 404) {
            return done(std::optional<nlohmann::json>());
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
    inspect([self = shared_from_this()](Expected<std::optional<nlohmann::json>> present) {
      if (!present.ok()) return self->done_(present.error());
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

  // The bundled image: used when its version label is this plugin's, built otherwise.
  void ensure_desktop_image(const std::optional<nlohmann::json>& found) {
    auto version = found ? image_version_label(*found) : std::nullopt;
    if (version && *version == desktop_image_version()) {
      send_progress(nlohmann::json{
          {"progress", 1}, {"total", 1}, {"message", "Image " + image_ + " is present"}});
      return done_(result("present"));
    }
    rebuilding_ = found.has_value();
    build();
  }

  void build() {
    if (ctx_.shutting_down || is_cancelled(scope_)) return done_(cancelled_failure());
    std::string error;
    auto folder = locate_desktop_image_context(ctx_.options.desktop_image_context, error);
    if (!folder) {
      return done_(OpFailure{VC_E_NOT_FOUND, build_failure_message(error),
                             error_details(ctx_.profile, "image_build_failed", false)});
    }
    auto context = tar_build_context(*folder);
    if (!context.ok()) {
      return done_(OpFailure{context.error().status,
                             build_failure_message(context.error().message),
                             error_details(ctx_.profile, "image_build_failed", false)});
    }
    ctx_.log.info(std::string(rebuilding_ ? "Rebuilding" : "Building") + " the desktop image " +
                  image_ + " (version " + std::string(desktop_image_version()) + ") from " +
                  *folder + "; the first build takes one to three minutes");
    send_progress(build_progress_.event());
    engine::HttpRequest request;
    request.method = "POST";
    nlohmann::json build_args = {{kImageVersionBuildArg, std::string(desktop_image_version())}};
    request.target = engine::query_target(
        "/build", {{"t", image_}, {"buildargs", build_args.dump()}, {"rm", "1"},
                   {"forcerm", "1"}, {"pull", "0"}});
    request.content_type = "application/x-tar";
    request.body = std::move(context.value());
    std::weak_ptr<ImagePull> weak = weak_from_this();
    auto handle = ctx_.client.stream_lines(
        std::move(request),
        [weak](std::string_view line) {
          auto self = weak.lock();
          if (self && self->build_progress_.feed(line)) {
            self->send_progress(self->build_progress_.event());
          }
        },
        [self = shared_from_this()](engine::Result<int> end) { self->on_build_end(std::move(end)); });
    track_in(scope_, handle);
  }

  void on_build_end(engine::Result<int> end) {
    if (!end.ok()) {
      const auto& error = end.error();
      if (error.kind == engine::EngineErrorKind::kCancelled) return done_(cancelled_failure());
      std::string reason = error.kind == engine::EngineErrorKind::kHttpStatus
                               ? engine_reason(error)
                               : ctx_.engine_failure(error, "build image '" + image_ + "'").message;
      return done_(OpFailure{VC_E_FAILED, build_failure_message(reason),
                             error_details(ctx_.profile, "image_build_failed", true)});
    }
    if (build_progress_.error()) {
      std::string reason = *build_progress_.error();
      std::string tail = build_progress_.tail();
      if (!tail.empty()) reason += "\nLast build output:\n" + tail;
      return done_(OpFailure{VC_E_FAILED, build_failure_message(reason),
                             error_details(ctx_.profile, "image_build_failed", true)});
    }
    inspect([self = shared_from_this()](Expected<std::optional<nlohmann::json>> built) {
      if (!built.ok()) return self->done_(built.error());
      auto version = built.value() ? image_version_label(*built.value()) : std::nullopt;
      if (!version || *version != desktop_image_version()) {
        return self->done_(OpFailure{
            VC_E_FAILED,
            self->build_failure_message("the build ended but the image " + self->image_ +
                                        " does not carry version " +
                                        std::string(desktop_image_version())),
            error_details(self->ctx_.profile, "image_build_failed", true)});
      }
      auto final_event = self->build_progress_.event();
      final_event["progress"] = final_event.value("total", nlohmann::json(1));
      final_event["total"] = final_event["progress"];
      final_event["message"] = "Built the desktop image " + self->image_;
      self->send_progress(final_event);
      self->ctx_.log.info("Built the desktop image " + self->image_);
      self->done_(self->result("built"));
    });
  }

  std::string build_failure_message(std::string_view reason) const {
    return "Failed to build the bundled Xfce desktop image " + image_ + ". The " +
           ctx_.profile.engine_display_name + " reported: " + std::string(reason);
  }

  static std::optional<std::string> image_version_label(const nlohmann::json& image) {
    const auto* config = image.is_object() && image.contains("Config") ? &image["Config"] : nullptr;
    if (!config || !config->is_object()) return std::nullopt;
    auto labels = config->find("Labels");
    if (labels == config->end() || !labels->is_object()) return std::nullopt;
    auto value = labels->find(kImageVersionLabel);
    if (value == labels->end() || !value->is_string()) return std::nullopt;
    return value->get<std::string>();
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
  BuildProgress build_progress_{image_};
  bool rebuilding_ = false;
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
