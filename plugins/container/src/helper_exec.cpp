// helper_exec.cpp — plugin-internal execs and exec inspection.
#include "helper_exec.h"

#include <memory>
#include <utility>

#include <vc_engine/url.h>

namespace vc::container {
namespace {

constexpr std::size_t kHelperOutputCap = 64 * 1024;
constexpr std::chrono::milliseconds kExecInspectRetryDelay{10};

std::optional<ExecState> parse_exec_state(const nlohmann::json& body) {
  if (!body.is_object()) return std::nullopt;
  ExecState state;
  auto running = body.find("Running");
  if (running == body.end() || !running->is_boolean()) return std::nullopt;
  state.running = running->get<bool>();
  auto exit_code = body.find("ExitCode");
  // Podman reports 0 while running, so the code only counts once Running is false.
  if (!state.running && exit_code != body.end() && exit_code->is_number_integer()) {
    state.exit_code = exit_code->get<std::int64_t>();
  }
  auto pid = body.find("Pid");
  if (pid != body.end() && pid->is_number_integer()) state.pid = pid->get<std::int64_t>();
  auto container = body.find("ContainerID");
  if (container != body.end() && container->is_string()) {
    state.container_id = container->get<std::string>();
  }
  return state;
}

// One helper exec: create, hijack, collect, inspect.
class HelperExec : public std::enable_shared_from_this<HelperExec> {
 public:
  HelperExec(BackendContext& ctx, std::shared_ptr<CancelScope> scope, HelperExecRequest request,
             Callback<HelperExecResult> done)
      : ctx_(ctx), scope_(std::move(scope)), request_(std::move(request)), done_(std::move(done)) {}

  void start() {
    nlohmann::json body = {{"AttachStdin", false}, {"AttachStdout", true},
                           {"AttachStderr", true}, {"Tty", false},
                           {"Cmd", request_.argv}};
    if (request_.user) body["User"] = *request_.user;
    create_exec(ctx_, scope_, request_.container, body,
                [self = shared_from_this()](Expected<std::string> exec_id) {
                  if (!exec_id.ok()) return self->finish(exec_id.error());
                  self->exec_id_ = exec_id.value();
                  self->stream_output();
                });
  }

 private:
  void stream_output() {
    if (ctx_.shutting_down || is_cancelled(scope_)) return finish(cancelled_failure());
    engine::ExecStartOptions options;
    options.tty = false;
    options.deadlines.timeout = request_.timeout;
    engine::ExecStreamCallbacks callbacks;
    std::weak_ptr<HelperExec> weak = weak_from_this();
    callbacks.on_output = [weak](engine::StreamKind kind, std::string_view bytes) {
      auto self = weak.lock();
      if (!self) return;
      std::string& target = kind == engine::StreamKind::kStdout ? self->result_.stdout_text
                                                                : self->result_.stderr_text;
      if (target.size() < kHelperOutputCap) {
        target.append(bytes.substr(0, kHelperOutputCap - target.size()));
      }
    };
    callbacks.on_end = [self = shared_from_this()](engine::Result<void> end) {
      self->stream_.reset();
      if (!end.ok()) {
        const auto& error = end.error();
        if (error.kind == engine::EngineErrorKind::kTimeout) {
          return self->finish(OpFailure{
              VC_E_TIMEOUT,
              "The command '" + self->describe() + "' did not finish within " +
                  std::to_string(self->request_.timeout.count() / 1000) + " s in container " +
                  self->request_.container + ".",
              error_details(self->ctx_.profile, "helper_timeout", true)});
        }
        return self->finish(self->ctx_.engine_failure(
            error, "run '" + self->describe() + "' in container " + self->request_.container));
      }
      inspect_exec(self->ctx_, self->scope_, self->exec_id_, 50,
                   [self](Expected<ExecState> state) {
                     if (!state.ok()) return self->finish(state.error());
                     self->result_.exit_code = state.value().exit_code.value_or(-1);
                     self->finish(self->result_);
                   });
    };
    stream_ = ctx_.client.start_exec(exec_id_, options, std::move(callbacks));
    if (scope_) {
      scope_->set_canceller([weak] {
        if (auto self = weak.lock(); self && self->stream_) self->stream_->abort();
      });
    }
  }

  std::string describe() const {
    std::string text;
    for (const auto& arg : request_.argv) {
      if (!text.empty()) text += ' ';
      text += arg;
    }
    return text;
  }

  void finish(Expected<HelperExecResult> outcome) {
    if (!done_) return;
    auto done = std::move(done_);
    done_ = nullptr;
    done(std::move(outcome));
  }

  BackendContext& ctx_;
  std::shared_ptr<CancelScope> scope_;
  HelperExecRequest request_;
  Callback<HelperExecResult> done_;
  std::string exec_id_;
  std::unique_ptr<engine::ExecStream> stream_;
  HelperExecResult result_;
};

}  // namespace

void create_exec(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                 const std::string& container, const nlohmann::json& body,
                 Callback<std::string> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.post_json(
      "/containers/" + engine::url_encode(container) + "/exec", body,
      [&ctx, container, done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (result.ok()) {
          const auto& answer = result.value().body;
          auto id = answer.is_object() ? answer.find("Id") : answer.end();
          if (!answer.is_object() || id == answer.end() || !id->is_string()) {
            return done(OpFailure{VC_E_FAILED,
                                  "The " + ctx.profile.engine_display_name +
                                      " did not return an exec id for container " + container +
                                      ".",
                                  error_details(ctx.profile, "invalid_exec_answer", false)});
          }
          return done(id->get<std::string>());
        }
        const auto& error = result.error();
        if (error.kind == engine::EngineErrorKind::kHttpStatus) {
          // Docker answers 409 "is not running", Podman 500 "can only create exec sessions on
          // running containers".
          if (error.http_status == 409 || engine_reason(error).find("running") != std::string::npos) {
            return done(OpFailure{VC_E_COMPUTER_STOPPED,
                                  "Container " + container + " is not running (" +
                                      engine_reason(error) + ").",
                                  error_details(ctx.profile, "container_not_running", true,
                                                error.http_status)});
          }
          if (error.http_status == 404) {
            return done(OpFailure{VC_E_NOT_FOUND,
                                  "Container " + container + " does not exist (" +
                                      engine_reason(error) + ").",
                                  error_details(ctx.profile, "container_missing", false, 404)});
          }
        }
        done(ctx.engine_failure(error, "start a command in container " + container));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void inspect_exec(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                  const std::string& exec_id, int attempts, Callback<ExecState> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.get_json(
      "/exec/" + engine::url_encode(exec_id) + "/json",
      [&ctx, scope, exec_id, attempts,
       done = std::move(done)](engine::Result<engine::JsonResponse> result) mutable {
        if (!result.ok()) return done(ctx.engine_failure(result.error(), "inspect exec " + exec_id));
        auto state = parse_exec_state(result.value().body);
        if (!state) {
          return done(OpFailure{VC_E_FAILED,
                                "The " + ctx.profile.engine_display_name +
                                    " returned invalid exec data for exec " + exec_id + ".",
                                error_details(ctx.profile, "invalid_exec_inspect", false)});
        }
        if (state->running && attempts > 1 && !is_cancelled(scope)) {
          bool posted = ctx.loop.post_after(
              kExecInspectRetryDelay, [&ctx, scope, exec_id, attempts, done]() mutable {
                inspect_exec(ctx, scope, exec_id, attempts - 1, std::move(done));
              });
          if (posted) return;
        }
        done(*state);
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void run_helper_exec(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     HelperExecRequest request, Callback<HelperExecResult> done) {
  std::make_shared<HelperExec>(ctx, scope, std::move(request), std::move(done))->start();
}

}  // namespace vc::container
