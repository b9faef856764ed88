// container_calls.cpp — single engine calls and what their statuses mean.
#include "container_calls.h"

#include <chrono>
#include <utility>

#include <vc_engine/url.h>

namespace vc::container {
namespace {

std::string container_path(const std::string& name, std::string_view rest = {}) {
  return "/containers/" + engine::url_encode(name) + std::string(rest);
}

// Stopping waits out the grace period on the engine's side; the call's deadline must too.
engine::RequestOptions stop_deadlines(const BackendContext& ctx) {
  auto deadlines = ctx.call_deadlines();
  deadlines.timeout += std::chrono::seconds(kStopGraceSeconds);
  return deadlines;
}

// A call whose success has no value: `ok_statuses` beyond 2xx (304, 404) also count as done.
void call_for_done(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                   std::string method, std::string path, std::optional<nlohmann::json> body,
                   std::string action, std::vector<int> tolerated_statuses,
                   engine::RequestOptions deadlines, Callback<Done> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.call_json(
      std::move(method), std::move(path), std::move(body),
      [&ctx, action = std::move(action), tolerated = std::move(tolerated_statuses),
       done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (result.ok()) return done(Done{});
        const auto& error = result.error();
        for (int status : tolerated) {
          if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == status) {
            return done(Done{});
          }
        }
        done(ctx.engine_failure(error, action));
      },
      deadlines);
  track_in(scope, handle);
}

}  // namespace

void inspect_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const std::string& name, Callback<std::optional<nlohmann::json>> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.get_json(
      container_path(name, "/json"),
      [&ctx, name, done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (result.ok()) {
          if (!result.value().body.is_object()) {
            return done(OpFailure{VC_E_FAILED,
                                  "The " + ctx.profile.engine_display_name +
                                      " returned invalid inspect data for container '" + name +
                                      "'.",
                                  error_details(ctx.profile, "invalid_inspect", false)});
          }
          return done(std::optional<nlohmann::json>(std::move(result.value().body)));
        }
        const auto& error = result.error();
        if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == 404) {
          return done(std::optional<nlohmann::json>());
        }
        done(ctx.engine_failure(error, "inspect container " + name));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void create_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      const std::string& name, const nlohmann::json& document,
                      Callback<std::string> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.post_json(
      engine::query_target("/containers/create", {{"name", name}}), document,
      [&ctx, name, image = document.value("Image", std::string()),
       done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (result.ok()) {
          const auto& body = result.value().body;
          auto id = body.is_object() ? body.find("Id") : body.end();
          if (!body.is_object() || id == body.end() || !id->is_string()) {
            return done(OpFailure{VC_E_FAILED,
                                  "The " + ctx.profile.engine_display_name +
                                      " created container " + name + " but did not say its id.",
                                  error_details(ctx.profile, "invalid_create_answer", false)});
          }
          return done(id->get<std::string>());
        }
        const auto& error = result.error();
        if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == 409) {
          return done(OpFailure{VC_E_ALREADY_EXISTS,
                                ctx.profile.product_display_name + " name '" + name +
                                    "' is already in use: " + engine_reason(error) + ".",
                                error_details(ctx.profile, "name_in_use", false, 409)});
        }
        if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == 404) {
          return done(OpFailure{VC_E_NOT_FOUND,
                                "Cannot create container " + name + ": image '" + image +
                                    "' is not available (" + engine_reason(error) + ").",
                                error_details(ctx.profile, "image_not_found", false, 404)});
        }
        done(ctx.engine_failure(error, "create container " + name + " from image '" + image +
                                           "'"));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void start_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     const std::string& name, Callback<Done> done) {
  call_for_done(ctx, scope, "POST", container_path(name, "/start"), std::nullopt,
                "start container " + name, {304}, ctx.call_deadlines(), std::move(done));
}

void unpause_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const std::string& name, Callback<Done> done) {
  call_for_done(ctx, scope, "POST", container_path(name, "/unpause"), std::nullopt,
                "unpause container " + name, {}, ctx.call_deadlines(), std::move(done));
}

void stop_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                    const std::string& name, Callback<Done> done) {
  call_for_done(ctx, scope, "POST",
                container_path(name, "/stop?t=" + std::to_string(kStopGraceSeconds)),
                std::nullopt, "stop container " + name, {304, 404}, stop_deadlines(ctx),
                std::move(done));
}

void restart_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const std::string& name, Callback<Done> done) {
  call_for_done(ctx, scope, "POST",
                container_path(name, "/restart?t=" + std::to_string(kStopGraceSeconds)),
                std::nullopt, "restart container " + name, {}, stop_deadlines(ctx),
                std::move(done));
}

void remove_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      const std::string& name, Callback<bool> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.delete_json(
      container_path(name, "?force=1"),
      [&ctx, name, done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (result.ok()) return done(true);
        const auto& error = result.error();
        if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == 404) {
          return done(false);
        }
        done(ctx.engine_failure(error, "remove container " + name));
      },
      stop_deadlines(ctx));
  track_in(scope, handle);
}

void rename_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      const std::string& name, const std::string& new_name, Callback<Done> done) {
  call_for_done(ctx, scope, "POST",
                engine::query_target(container_path(name, "/rename"), {{"name", new_name}}),
                std::nullopt, "rename container " + name + " to " + new_name, {},
                ctx.call_deadlines(), std::move(done));
}

void connect_network(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     const std::string& network, const std::string& name, Callback<Done> done) {
  call_for_done(ctx, scope, "POST", "/networks/" + engine::url_encode(network) + "/connect",
                nlohmann::json{{"Container", name}, {"EndpointConfig", nlohmann::json::object()}},
                "connect container " + name + " to network " + network, {},
                ctx.call_deadlines(), std::move(done));
}

void disconnect_network(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                        const std::string& network, const std::string& name,
                        Callback<Done> done) {
  call_for_done(ctx, scope, "POST", "/networks/" + engine::url_encode(network) + "/disconnect",
                nlohmann::json{{"Container", name}, {"Force", false}},
                "disconnect container " + name + " from network " + network, {},
                ctx.call_deadlines(), std::move(done));
}

}  // namespace vc::container
