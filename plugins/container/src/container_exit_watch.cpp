// container_exit_watch.cpp — the wait long poll and the expected-stop check.
#include "container_exit_watch.h"

#include <chrono>
#include <utility>

#include <vc_engine/url.h>

#include "computer_info.h"
#include "computer_naming.h"

namespace vc::container {
namespace {

// Give up after this many failed attempts in a row (the engine stays away; the host then
// forgets the computer and its next call finds it afresh).
constexpr int kMaxConsecutiveFailures = 30;
constexpr std::chrono::milliseconds kRetryDelay{1000};

}  // namespace

ContainerExitWatch::ContainerExitWatch(BackendContext& ctx,
                                       std::shared_ptr<ComputerRecord> record,
                                       Callback<nlohmann::json> done)
    : ctx_(ctx), record_(std::move(record)), done_(std::move(done)) {}

void ContainerExitWatch::start() {
  // A watch cancelled before it started (its op's cancel hook ran at once) is over already;
  // holding itself then would keep it, and its record, forever.
  if (done_ == nullptr) return;
  keep_alive_ = shared_from_this();
  arm();
}

void ContainerExitWatch::cancel() {
  scope_->cancel();
  finish(cancelled_failure());
}

// Waits until no stop of ours is in progress, then inspects the container by name (a factory
// reset replaces it) and starts waiting on it.
void ContainerExitWatch::arm() {
  if (done_ == nullptr) return;
  std::weak_ptr<ContainerExitWatch> weak = weak_from_this();
  record_->when_settled([weak] {
    auto self = weak.lock();
    if (!self || self->done_ == nullptr) return;
    self->armed_generation_ = self->record_->stop_generation();
    inspect_container(self->ctx_, self->scope_, container_name(self->record_->computer_id),
                      [self](Expected<std::optional<nlohmann::json>> inspected) {
                        self->on_inspected(std::move(inspected));
                      });
  });
}

void ContainerExitWatch::on_inspected(Expected<std::optional<nlohmann::json>> inspected) {
  if (done_ == nullptr) return;
  if (!inspected.ok()) {
    if (inspected.error().status == VC_E_CANCELLED) return finish(inspected.error());
    return retry_later();
  }
  consecutive_failures_ = 0;
  const auto& container = inspected.value();
  const bool ours_stopping = record_->stop_generation() != armed_generation_ ||
                             record_->stop_in_progress();
  if (ours_stopping) return arm();
  if (!container && record_->removed_on_purpose()) {
    // Removed through this plugin: not a death. Watch again once it is created anew.
    std::weak_ptr<ContainerExitWatch> weak = weak_from_this();
    scope_->clear();
    record_->when_recreated([weak] {
      if (auto self = weak.lock()) self->arm();
    });
    return;
  }
  if (!container || !is_owned_by(*container, record_->computer_id)) {
    // Gone, and not by our hand: removed from outside (docker rm -f).
    return finish(nlohmann::json{{"reason", "removed"}});
  }
  if (!is_running(*container)) {
    // Stopped while nobody watched (between acquisition and this watch, say).
    return died(*container, std::nullopt);
  }
  record_->saw_running(ctx_.client.connection_losses());
  watched_id_ = container->value("Id", std::string());
  std::weak_ptr<ContainerExitWatch> weak = weak_from_this();
  auto handle = ctx_.client.long_poll_json(
      "POST", "/containers/" + engine::url_encode(watched_id_) + "/wait?condition=next-exit",
      std::nullopt, nullptr,
      [self = shared_from_this()](engine::Result<engine::JsonResponse> answer) {
        self->on_wait_answer(std::move(answer));
      });
  track_in(scope_, handle);
}

void ContainerExitWatch::on_wait_answer(engine::Result<engine::JsonResponse> answer) {
  if (done_ == nullptr) return;
  if (!answer.ok()) {
    if (answer.error().kind == engine::EngineErrorKind::kCancelled) {
      return finish(cancelled_failure());
    }
    // 404: the container vanished before the wait registered; anything else: the connection
    // broke (engine restart). Either way, look again.
    return retry_later();
  }
  std::optional<std::int64_t> exit_code;
  const auto& body = answer.value().body;
  if (body.is_object()) {
    auto code = body.find("StatusCode");
    if (code != body.end() && code->is_number_integer()) exit_code = code->get<std::int64_t>();
  }
  if (record_->stop_generation() != armed_generation_ || record_->stop_in_progress()) {
    return arm();  // we stopped it: restart, remove or reset; follow the computer
  }
  // Read the container once more for the reason (OOM) and to be sure it is not back already.
  inspect_container(ctx_, scope_, container_name(record_->computer_id),
                    [self = shared_from_this(), exit_code](Expected<std::optional<nlohmann::json>> r) {
                      if (self->done_ == nullptr) return;
                      if (self->record_->stop_generation() != self->armed_generation_ ||
                          self->record_->stop_in_progress()) {
                        return self->arm();
                      }
                      if (!r.ok()) {
                        if (r.error().status == VC_E_CANCELLED) return self->finish(r.error());
                        // The engine went away right after the exit (its shutdown stops
                        // containers): look again once it answers.
                        if (r.error().status == VC_E_UNAVAILABLE) return self->retry_later();
                        return self->died(nlohmann::json::object(), exit_code);
                      }
                      if (!r.value()) return self->finish(nlohmann::json{{"reason", "removed"}});
                      self->died(*r.value(), exit_code);
                    });
}

void ContainerExitWatch::died(nlohmann::json container, std::optional<std::int64_t> exit_code) {
  nlohmann::json result = {{"reason", "exited"}};
  const auto& state = container.value("State", nlohmann::json::object());
  if (!exit_code) {
    auto code = state.find("ExitCode");
    if (code != state.end() && code->is_number_integer()) exit_code = code->get<std::int64_t>();
  }
  if (record_->engine_lost_since_running(ctx_.client.connection_losses())) {
    // The engine was unreachable between the last sight of the container running and now:
    // an engine that shuts down stops its containers, so this stop is the engine's, not a
    // death. The host brings the computer up again on its next call.
    std::string code = exit_code ? " (exit code " + std::to_string(*exit_code) + ")" : "";
    return finish(OpFailure{VC_E_UNAVAILABLE,
                            "The " + ctx_.profile.engine_display_name + " at " + ctx_.address +
                                " went away and stopped computer '" + record_->computer_id +
                                "' with it" + code + "; its files are kept, and the next call "
                                "starts it again.",
                            error_details(ctx_.profile, "engine_restarted", true)});
  }
  if (state.value("OOMKilled", false)) result["reason"] = "oom";
  if (exit_code) result["exit_code"] = *exit_code;
  finish(std::move(result));
}

void ContainerExitWatch::retry_later() {
  if (++consecutive_failures_ > kMaxConsecutiveFailures) {
    return finish(OpFailure{VC_E_UNAVAILABLE,
                            "Stopped watching computer '" + record_->computer_id +
                                "': the " + ctx_.profile.engine_display_name + " at " +
                                ctx_.address + " has not answered for a while.",
                            error_details(ctx_.profile, "engine_unreachable", true)});
  }
  if (!retry_timer_) retry_timer_ = std::make_unique<engine::LoopTimer>(ctx_.loop);
  std::weak_ptr<ContainerExitWatch> weak = weak_from_this();
  retry_timer_->start(kRetryDelay, [weak] {
    if (auto self = weak.lock()) self->arm();
  });
  // While the timer runs, a cancel must still end the op: the scope's canceller is cleared.
  scope_->clear();
}

void ContainerExitWatch::finish(Expected<nlohmann::json> outcome) {
  if (done_ == nullptr) return;
  auto keep = std::move(keep_alive_);  // released when this call returns
  if (retry_timer_) retry_timer_->stop();
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(outcome));
}

}  // namespace vc::container
