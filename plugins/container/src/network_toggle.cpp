// network_toggle.cpp — network plans and their application with rollback.
#include "network_toggle.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "computer_info.h"

namespace vc::container {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

NetworkStep reversed(const NetworkStep& step) {
  return NetworkStep{step.action == NetworkStep::Action::kConnect ? NetworkStep::Action::kDisconnect
                                                                  : NetworkStep::Action::kConnect,
                     step.network};
}

// Runs steps one by one; on a failure undoes the completed ones in reverse order.
class NetworkChange : public std::enable_shared_from_this<NetworkChange> {
 public:
  NetworkChange(BackendContext& ctx, std::string name, std::vector<NetworkStep> steps,
                bool enable, Callback<Done> done)
      : ctx_(ctx), name_(std::move(name)), steps_(std::move(steps)), enable_(enable),
        done_(std::move(done)) {}

  void run_next() {
    if (next_ == steps_.size()) return done_(Done{});
    run_step(steps_[next_], [self = shared_from_this()](Expected<Done> result) {
      if (result.ok()) {
        ++self->next_;
        return self->run_next();
      }
      self->failure_ = result.error();
      self->rollback_next();
    });
  }

 private:
  void run_step(const NetworkStep& step, Callback<Done> done) {
    if (step.action == NetworkStep::Action::kConnect) {
      connect_network(ctx_, nullptr, step.network, name_, std::move(done));
    } else {
      disconnect_network(ctx_, nullptr, step.network, name_, std::move(done));
    }
  }

  // Undoes steps_[next_ - 1], then the ones before it.
  void rollback_next() {
    if (next_ == 0) return finish_failed();
    --next_;
    run_step(reversed(steps_[next_]), [self = shared_from_this()](Expected<Done> result) {
      if (!result.ok()) {
        self->rollback_complete_ = false;
        self->ctx_.log.warn("Rolling back a network change of container " + self->name_ +
                            " failed: " + result.error().message);
      }
      self->rollback_next();
    });
  }

  void finish_failed() {
    OpFailure failure = failure_;
    failure.message = "Could not turn network access " + std::string(enable_ ? "on" : "off") +
                      " for container " + name_ + ": " + failure_.message +
                      (rollback_complete_ ? " The previous network state was restored."
                                          : " Restoring the previous network state failed too; "
                                            "check the container's networks.");
    done_(std::move(failure));
  }

  BackendContext& ctx_;
  std::string name_;
  std::vector<NetworkStep> steps_;
  bool enable_;
  Callback<Done> done_;
  std::size_t next_ = 0;
  OpFailure failure_;
  bool rollback_complete_ = true;
};

}  // namespace

std::vector<NetworkStep> plan_network_change(const std::vector<std::string>& attached,
                                             bool enable, const EngineProfile& profile) {
  std::vector<NetworkStep> steps;
  const bool online = has_network_access(attached);
  if (enable) {
    if (online) return steps;
    // A container may not be on `none` and a real network at once: leave `none` first.
    for (const auto& name : attached) steps.push_back({NetworkStep::Action::kDisconnect, name});
    steps.push_back({NetworkStep::Action::kConnect, profile.online_network});
    return steps;
  }
  for (const auto& name : attached) {
    if (name == "none") continue;
    steps.push_back({NetworkStep::Action::kDisconnect, name});
  }
  if (profile.offline_network && !contains(attached, *profile.offline_network)) {
    steps.push_back({NetworkStep::Action::kConnect, *profile.offline_network});
  }
  return steps;
}

void apply_network_plan(BackendContext& ctx, const std::string& name,
                        std::vector<NetworkStep> steps, bool enable, Callback<Done> done) {
  if (steps.empty()) return done(Done{});
  std::make_shared<NetworkChange>(ctx, name, std::move(steps), enable, std::move(done))->run_next();
}

}  // namespace vc::container
