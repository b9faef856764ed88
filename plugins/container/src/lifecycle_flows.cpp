// lifecycle_flows.cpp — create, attach, restart, remove, factory reset, network, list.
#include "lifecycle_flows.h"

#include <chrono>
#include <utility>

#include <vc_engine/url.h>

#include "checkpoint_images.h"
#include "command_dispatch.h"
#include "computer_info.h"
#include "computer_naming.h"
#include "desktop_access.h"
#include "desktop_image.h"
#include "desktop_mode.h"
#include "egress_firewall.h"
#include "helper_exec.h"
#include "network_toggle.h"

namespace vc::container {
namespace {

// The readiness probe gets this long (the original's 15 s).
constexpr std::chrono::seconds kReadinessTimeout{15};

}  // namespace

OpFailure missing_computer(const BackendContext& ctx, const std::string& computer_id) {
  return OpFailure{VC_E_NOT_FOUND,
                   "Computer '" + computer_id + "' was not found: there is no container named " +
                       container_name(computer_id) + " at the " + ctx.profile.engine_display_name +
                       " at " + ctx.address + ".",
                   error_details(ctx.profile, "computer_not_found", false)};
}

OpFailure existing_computer(const BackendContext& ctx, const std::string& computer_id) {
  return OpFailure{VC_E_ALREADY_EXISTS, "Computer '" + computer_id + "' already exists.",
                   error_details(ctx.profile, "computer_exists", false)};
}

OpFailure foreign_container(const BackendContext& ctx, const std::string& computer_id) {
  return OpFailure{VC_E_ALREADY_EXISTS,
                   ctx.profile.product_display_name + " name '" + container_name(computer_id) +
                       "' is already in use by a container not owned by this server.",
                   error_details(ctx.profile, "name_owned_by_other", false)};
}

OpFailure desktop_refused(const BackendContext& ctx, const std::string& computer_id) {
  return OpFailure{VC_E_UNSUPPORTED,
                   "Computer '" + computer_id +
                       "' was created from a headless or custom image and cannot start Xfce in "
                       "place. Its data was left untouched; use factory_reset_computer only if "
                       "replacing it is intentional (a reset keeps the image: create it from " +
                       std::string(kDesktopImageTag) + " to get a desktop).",
                   error_details(ctx.profile, "desktop_unsupported", false)};
}

namespace {

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

// True when a list row's names include /kilntainer-<its labelled computer id>.
bool is_named_for_its_computer(const nlohmann::json& row) {
  auto id = labelled_computer_id(row);
  if (!id) return true;  // not a computer of ours; computer_info_from_list_row decides
  const auto names = row.find("Names");
  if (names == row.end() || !names->is_array()) return true;  // an engine without names
  // Engines list names with a leading '/' (Docker) or without (some Podman versions).
  const std::string own = container_name(*id);
  for (const auto& name : *names) {
    if (!name.is_string()) continue;
    std::string_view listed = name.get_ref<const std::string&>();
    if (!listed.empty() && listed.front() == '/') listed.remove_prefix(1);
    if (listed == own) return true;
  }
  return false;
}

}  // namespace

void inspect_owned(BackendContext& ctx, const FlowScope& scope, const Record& record,
                   Callback<std::optional<nlohmann::json>> done) {
  inspect_container(ctx, scope, container_name(record->computer_id),
                    [&ctx, record, done = std::move(done)](
                        Expected<std::optional<nlohmann::json>> inspected) {
                      if (!inspected.ok()) return done(inspected);
                      const auto& container = inspected.value();
                      if (container && !is_owned_by(*container, record->computer_id)) {
                        return done(foreign_container(ctx, record->computer_id));
                      }
                      if (container) {
                        auto id = container->find("Id");
                        if (id != container->end() && id->is_string()) {
                          record->container_id = id->get<std::string>();
                        }
                      }
                      done(inspected);
                    });
}

void with_existing(BackendContext& ctx, const FlowScope& scope, const Record& record,
                   Callback<nlohmann::json> done, WithContainer next) {
  inspect_owned(ctx, scope, record,
                [&ctx, record, done = std::move(done),
                 next = std::move(next)](Expected<std::optional<nlohmann::json>> r) mutable {
                  if (!r.ok()) return done(r.error());
                  if (!r.value()) return done(missing_computer(ctx, record->computer_id));
                  next(std::move(*r.value()), std::move(done));
                });
}

namespace {

// The failure of a flow whose container was removed from outside while the flow ran.
OpFailure vanished(const BackendContext& ctx, std::string message, bool retry) {
  return OpFailure{VC_E_COMPUTER_DIED, std::move(message),
                   error_details(ctx.profile, "container_vanished", retry)};
}

// `done`, keeping `stop_token` alive until it is called: the stop stays expected (the death
// watch stays quiet) until the flow's last step has finished.
template <class T>
Callback<T> holding(std::shared_ptr<ComputerRecord::ExpectedStop> stop_token, Callback<T> done) {
  return [stop_token = std::move(stop_token), done = std::move(done)](Expected<T> result) {
    done(std::move(result));
  };
}

// Takes an owned container into service: running, answering commands, with the requested
// network state. Yields its computer info.
class BringUp : public std::enable_shared_from_this<BringUp> {
 public:
  BringUp(BackendContext& ctx, FlowScope scope, Record record, std::string shell,
          std::optional<bool> network_access, std::optional<bool> desktop_environment,
          Callback<nlohmann::json> done)
      : ctx_(ctx), scope_(std::move(scope)), record_(std::move(record)),
        shell_(std::move(shell)), network_access_(network_access),
        desktop_environment_(desktop_environment), done_(std::move(done)),
        name_(container_name(record_->computer_id)) {}

  // `container` is a fresh inspect document of the container.
  void run(nlohmann::json container) {
    container_ = std::move(container);
    desktop_capable_ = is_desktop_capable(container_);
    // What the commands of this computer hand over in its read-write mounts (docs/mounts.md).
    record_->mounts = mounts_from_label(label_of(container_, labels::kMounts, ""));
    record_->mount_owner = parse_mount_owner(label_of(container_, labels::kMountOwner, ""))
                               .value_or(ctx_.options.mount_owner);
    record_->mounts_known = true;
    if (!desktop_capable_ && desktop_environment_.value_or(false)) {
      return done_(desktop_refused(ctx_, record_->computer_id));
    }
    const auto& state = container_.value("State", nlohmann::json::object());
    if (state.value("Paused", false)) {
      return unpause_container(ctx_, scope_, name_, [self = shared_from_this()](Expected<Done> r) {
        if (!r.ok()) return self->done_(r.error());
        self->check_readiness();
      });
    }
    if (!is_running(container_)) {
      return start_container(ctx_, scope_, name_, [self = shared_from_this()](Expected<Done> r) {
        if (!r.ok()) return self->done_(r.error());
        self->check_readiness();
      });
    }
    check_readiness();
  }

 private:
  void check_readiness() {
    if (is_cancelled(scope_)) return done_(cancelled_failure());
    // By the path commands take (the exec agent, by default), which also makes the agent ready
    // before the first command.
    run_probe_command(ctx_, record_, {shell_, "-c", std::string("echo ") + kReadinessMarker},
                      kReadinessTimeout, [self = shared_from_this()](Expected<HelperExecResult> r) {
                        if (is_cancelled(self->scope_)) return self->done_(cancelled_failure());
                        self->on_readiness(std::move(r));
                      });
  }

  void on_readiness(Expected<HelperExecResult> probe) {
    if (!probe.ok() && probe.error().status == VC_E_CANCELLED) return done_(probe.error());
    std::optional<OpFailure> failure;
    const std::string short_id = short_container_id(record_->container_id);
    const std::string command = shell_ + " -c " + shell_quote(std::string("echo ") + kReadinessMarker);
    if (!probe.ok()) {
      failure = probe.error();
      failure->message = "Container " + short_id + " started but its readiness check failed: " +
                         failure->message;
    } else if (probe.value().exit_code != 0) {
      const auto& result = probe.value();
      std::string output = trimmed(result.stderr_text.empty() ? result.stdout_text
                                                              : result.stderr_text);
      failure = OpFailure{VC_E_FAILED,
                          "Container " + short_id + " started but its readiness check (" +
                              command + ") failed with exit code " +
                              std::to_string(result.exit_code) +
                              (output.empty() ? "" : ": " + output) +
                              ". Check that --shell names a shell that exists in the image.",
                          error_details(ctx_.profile, "readiness_failed", false)};
    } else if (probe.value().stdout_text.find(kReadinessMarker) == std::string::npos) {
      failure = OpFailure{VC_E_FAILED,
                          "Container " + short_id +
                              " started but readiness check failed (unexpected output).",
                          error_details(ctx_.profile, "readiness_failed", false)};
    }
    if (!failure) return apply_network();

    // Like the original: stop the container (a persistent one stays, stopped, and the next
    // attach tries again). The stop is ours, not a death.
    auto stop_token = record_->expect_stop();
    stop_container(ctx_, nullptr, name_,
                   [self = shared_from_this(), stop_token, failure = *failure](Expected<Done> r) {
                     if (!r.ok()) {
                       self->ctx_.log.warn("Stopping container " + self->name_ +
                                           " after its failed readiness check failed: " +
                                           r.error().message);
                     }
                     self->done_(failure);
                   });
  }

  void apply_network() {
    if (desktop_capable_) return apply_desktop_network();
    if (!network_access_) return describe();
    auto steps = plan_network_change(attached_networks(container_), *network_access_, ctx_.profile);
    apply_network_plan(ctx_, name_, std::move(steps), *network_access_,
                       [self = shared_from_this()](Expected<Done> r) {
                         if (!r.ok()) return self->done_(r.error());
                         self->describe();
                       });
  }

  // The firewall as asked, or as recorded when nothing was asked (a restart). The container
  // may have just (re)started, so its namespace is open: the rules go in again.
  void apply_desktop_network() {
    read_network_blocked(ctx_, scope_, record_->computer_id,
                         [self = shared_from_this()](Expected<bool> recorded) {
                           if (!recorded.ok()) return self->done_(recorded.error());
                           const bool block = self->network_access_
                                                  ? !*self->network_access_
                                                  : recorded.value();
                           self->network_blocked_ = block;
                           if (!block && !recorded.value()) return self->settle_desktop();
                           set_egress_blocked(self->ctx_, self->record_->computer_id,
                                              self->container_, block,
                                              [self](Expected<Done> r) {
                                                if (!r.ok()) return self->done_(r.error());
                                                self->settle_desktop();
                                              });
                         });
  }

  // Xfce as asked (create, attach), or as it was (restart: the marker in the writable layer),
  // and the screen, VNC and bridge up before the computer is reported.
  void settle_desktop() {
    auto settled = [self = shared_from_this()](Expected<DesktopState> state) {
      if (!state.ok()) return self->done_(state.error());
      self->desktop_enabled_ = state.value().enabled;
      self->record_->desktop_enabled = state.value().enabled;
      if (!state.value().live) {
        self->ctx_.log.warn("The desktop of computer '" + self->record_->computer_id +
                            "' was not " + (state.value().wanted ? "on" : "off") + " within " +
                            std::to_string(kDesktopSwitchTimeout.count()) + " s of its start");
      }
      self->describe();
    };
    if (desktop_environment_) {
      return switch_desktop(ctx_, scope_, name_, *desktop_environment_, std::move(settled));
    }
    read_desktop_state(ctx_, scope_, name_, kDesktopSwitchTimeout, std::move(settled));
  }

  void describe() {
    inspect_owned(ctx_, nullptr, record_,
                  [self = shared_from_this()](Expected<std::optional<nlohmann::json>> r) {
                    if (!r.ok()) return self->done_(r.error());
                    if (!r.value()) {
                      const std::string message = "Computer '" + self->record_->computer_id +
                                                  "' disappeared while it was being started " +
                                                  "(container " + self->name_ + " is gone).";
                      return self->done_(vanished(self->ctx_, message, true));
                    }
                    DesktopFacts facts{self->desktop_enabled_, self->network_blocked_};
                    self->done_(computer_info_from_inspect(*r.value(), self->ctx_.options.image,
                                                           facts));
                  });
  }

  BackendContext& ctx_;
  FlowScope scope_;
  Record record_;
  std::string shell_;
  std::optional<bool> network_access_;
  std::optional<bool> desktop_environment_;
  Callback<nlohmann::json> done_;
  std::string name_;
  nlohmann::json container_;
  bool desktop_capable_ = false;
  std::optional<bool> desktop_enabled_;
  bool network_blocked_ = false;
};

}  // namespace

void bring_up(BackendContext& ctx, FlowScope scope, Record record, std::string shell,
              std::optional<bool> network_access, std::optional<bool> desktop_environment,
              nlohmann::json container, Callback<nlohmann::json> done) {
  std::make_shared<BringUp>(ctx, std::move(scope), std::move(record), std::move(shell),
                            network_access, desktop_environment, std::move(done))
      ->run(std::move(container));
}

namespace {

// How often, and how far apart, a create that lost the name to another looks for the winner.
constexpr int kLooksForWinner = 20;
constexpr std::chrono::milliseconds kLookForWinnerDelay{100};

class CreateFresh : public std::enable_shared_from_this<CreateFresh> {
 public:
  CreateFresh(BackendContext& ctx, FlowScope scope, Record record, CreateRequest request,
              Callback<nlohmann::json> done)
      : ctx_(ctx), scope_(std::move(scope)), record_(std::move(record)),
        request_(std::move(request)), done_(std::move(done)),
        name_(container_name(record_->computer_id)) {}

  void run() {
    if (request_.spec.mounts.empty()) return make();
    // The host folders are checked against the engine's own data folder before anything is made.
    auto handle = ctx_.client.get_json(
        "/info",
        [self = shared_from_this()](engine::Result<engine::JsonResponse> info) {
          if (is_cancelled(self->scope_)) return self->done_(cancelled_failure());
          if (!info.ok()) {
            return self->done_(self->ctx_.engine_failure(info.error(), "read the engine's info"));
          }
          const auto& body = info.value().body;
          std::string data_root;
          if (body.is_object() && body.contains("DockerRootDir") &&
              body["DockerRootDir"].is_string()) {
            data_root = body["DockerRootDir"].get<std::string>();
          }
          std::string refused = check_host_folders(self->request_.spec.mounts, data_root);
          if (!refused.empty()) {
            return self->done_(OpFailure{VC_E_INVALID_ARGUMENT, std::move(refused), nullptr});
          }
          self->make();
        },
        ctx_.call_deadlines());
    track_in(scope_, handle);
  }

 private:
  void make() {
    request_.spec.network = ctx_.profile.online_network;
    request_.spec.desktop_capable = is_desktop_image(request_.spec.image);
    if (request_.spec.desktop_environment && !request_.spec.desktop_capable) {
      return done_(desktop_refused(ctx_, record_->computer_id));
    }
    if (request_.spec.desktop_capable && request_.spec.desktop_token.empty()) {
      try {
        request_.spec.desktop_token = generate_desktop_token();
      } catch (const std::exception& e) {
        return done_(OpFailure{VC_E_FAILED, e.what(), nullptr});
      }
    }
    create_container(ctx_, scope_, name_, build_create_document(request_.spec),
                     [self = shared_from_this()](Expected<std::string> id) {
                       if (!id.ok()) return self->on_create_failed(id.error());
                       self->record_->container_id = id.value();
                       self->record_->mark_created();
                       self->park_offline();
                     });
  }

  void on_create_failed(OpFailure failure) {
    if (failure.status != VC_E_ALREADY_EXISTS) return done_(std::move(failure));
    // Somebody created the name between our inspect and our create: adopt it when it is ours
    // and the request allows it, refuse it otherwise. The engine reserves the name before the
    // other create is done, so its container may not be there to inspect yet: it is looked
    // for again a few times (another host process creating the same computer at this moment).
    inspect_owned(ctx_, scope_, record_,
                  [self = shared_from_this(), failure](Expected<std::optional<nlohmann::json>> r) {
                    if (!r.ok()) return self->done_(r.error());
                    if (!r.value()) return self->look_again_for_winner(failure);
                    if (!self->request_.adopt_existing) {
                      return self->done_(existing_computer(self->ctx_, self->record_->computer_id));
                    }
                    bring_up(self->ctx_, self->scope_, self->record_, self->request_.shell,
                             self->request_.network_access, self->request_.spec.desktop_environment,
                             *r.value(), self->done_);
                  });
  }

  void look_again_for_winner(OpFailure failure) {
    if (++looks_for_winner_ > kLooksForWinner || ctx_.shutting_down) return done_(std::move(failure));
    const bool posted = ctx_.loop.post_after(
        kLookForWinnerDelay, [self = shared_from_this(), failure]() mutable {
          if (is_cancelled(self->scope_) || self->ctx_.shutting_down) {
            return self->done_(cancelled_failure());
          }
          self->on_create_failed(std::move(failure));
        });
    if (!posted) done_(cancelled_failure());
  }

  // A computer without network access never gets a network: it is detached before its first
  // start (the container is created on the online network, which every engine can later
  // reconnect; Podman cannot reconnect one created on `none`).
  // (A desktop computer keeps its network: its firewall goes up right after its start.)
  void park_offline() {
    if (request_.network_access || request_.spec.desktop_capable) return start();
    auto steps = plan_network_change({ctx_.profile.online_network}, false, ctx_.profile);
    apply_network_plan(ctx_, name_, std::move(steps), false,
                       [self = shared_from_this()](Expected<Done> r) {
                         if (!r.ok()) return self->remove_after_failure(r.error());
                         self->start();
                       });
  }

  void start() {
    start_container(ctx_, scope_, name_, [self = shared_from_this()](Expected<Done> r) {
      if (!r.ok()) return self->remove_after_failure(r.error());
      inspect_owned(self->ctx_, self->scope_, self->record_,
                    [self](Expected<std::optional<nlohmann::json>> inspected) {
                      if (!inspected.ok()) return self->done_(inspected.error());
                      if (!inspected.value()) {
                        return self->done_(vanished(
                            self->ctx_,
                            "Container " + self->name_ + " disappeared right after it started.",
                            true));
                      }
                      bring_up(self->ctx_, self->scope_, self->record_, self->request_.shell,
                               self->request_.network_access,
                               self->request_.spec.desktop_environment, *inspected.value(),
                               self->done_);
                    });
    });
  }

  // A container that never ran holds nothing: remove it so that the next attempt starts from
  // the (possibly corrected) options instead of adopting a broken container.
  void remove_after_failure(OpFailure failure) {
    if (failure.status != VC_E_CANCELLED) {
      failure.message = "Container " + name_ + " was created but could not be started: " +
                        failure.message;
    }
    auto stop_token = record_->expect_stop();
    remove_container(ctx_, nullptr, name_,
                     [self = shared_from_this(), stop_token, failure](Expected<bool> r) {
                       if (!r.ok()) {
                         self->ctx_.log.warn("Removing container " + self->name_ +
                                             " after a failed start failed: " +
                                             r.error().message);
                       }
                       self->done_(failure);
                     });
  }

  BackendContext& ctx_;
  FlowScope scope_;
  Record record_;
  CreateRequest request_;
  Callback<nlohmann::json> done_;
  int looks_for_winner_ = 0;
  std::string name_;
};

}  // namespace

void create_fresh(BackendContext& ctx, FlowScope scope, Record record, CreateRequest request,
                  Callback<nlohmann::json> done) {
  std::make_shared<CreateFresh>(ctx, std::move(scope), std::move(record), std::move(request),
                                std::move(done))
      ->run();
}

void keep_mounts(const nlohmann::json& container, ContainerSpec& spec, MountOwner fallback_owner) {
  spec.mounts = mounts_from_label(label_of(container, labels::kMounts, ""));
  spec.mount_owner =
      parse_mount_owner(label_of(container, labels::kMountOwner, "")).value_or(fallback_owner);
}

std::string label_of(const nlohmann::json& container, const char* key, std::string fallback) {
  const auto& all = container_labels(container);
  auto it = all.find(key);
  return it != all.end() && it->is_string() ? it->get<std::string>() : fallback;
}

void run_create(BackendContext& ctx, FlowScope scope, Record record, CreateRequest request,
                Callback<nlohmann::json> done) {
  record->shell = request.shell;
  inspect_owned(ctx, scope, record,
                [&ctx, scope, record, request = std::move(request),
                 done = std::move(done)](Expected<std::optional<nlohmann::json>> r) mutable {
                  if (!r.ok()) return done(r.error());
                  if (r.value()) {
                    if (!request.adopt_existing) {
                      return done(existing_computer(ctx, record->computer_id));
                    }
                    return bring_up(ctx, scope, record, request.shell, request.network_access,
                                    request.spec.desktop_environment, *r.value(),
                                    std::move(done));
                  }
                  if (is_cancelled(scope)) return done(cancelled_failure());
                  create_fresh(ctx, scope, record, std::move(request), std::move(done));
                });
}

void run_attach(BackendContext& ctx, FlowScope scope, Record record, AttachRequest request,
                Callback<nlohmann::json> done) {
  record->shell = request.shell;
  with_existing(ctx, scope, record, std::move(done),
                [&ctx, scope, record, request = std::move(request)](
                    nlohmann::json container, Callback<nlohmann::json> finish) {
                  bring_up(ctx, scope, record, request.shell, request.network_access,
                           request.desktop_environment, std::move(container), std::move(finish));
                });
}

void run_restart(BackendContext& ctx, FlowScope scope, Record record,
                 Callback<nlohmann::json> done) {
  with_existing(
      ctx, scope, record, std::move(done),
      [&ctx, scope, record](nlohmann::json container, Callback<nlohmann::json> finish) {
        if (auto gone = missing_host_folder(
                mounts_from_label(label_of(container, labels::kMounts, "")), "restarted");
            !gone.empty()) {
          return finish(OpFailure{VC_E_FAILED, std::move(gone), nullptr});
        }
        // A desktop computer's network comes back from its firewall record.
        std::optional<bool> network;
        if (!is_desktop_capable(container)) {
          network = has_network_access(attached_networks(container));
        }
        auto stop_token = record->expect_stop();
        restart_container(
            ctx, scope, container_name(record->computer_id),
            [&ctx, scope, record, network, stop_token,
             finish = std::move(finish)](Expected<Done> restarted) mutable {
              if (!restarted.ok()) return finish(restarted.error());
              inspect_owned(
                  ctx, scope, record,
                  [&ctx, scope, record, network, stop_token, finish = std::move(finish)](
                      Expected<std::optional<nlohmann::json>> again) mutable {
                    if (!again.ok()) return finish(again.error());
                    if (!again.value()) {
                      return finish(vanished(
                          ctx, "Computer '" + record->computer_id + "' disappeared after restart.",
                          false));
                    }
                    // The token lives until the computer is back in service: the death watch
                    // re-arms after that.
                    bring_up(ctx, scope, record, record->shell, network, std::nullopt,
                             std::move(*again.value()), holding(stop_token, std::move(finish)));
                  });
            });
      });
}

void run_remove(BackendContext& ctx, FlowScope scope, Record record,
                Callback<nlohmann::json> done) {
  inspect_owned(ctx, scope, record,
                [&ctx, scope, record,
                 done = std::move(done)](Expected<std::optional<nlohmann::json>> r) mutable {
                  if (!r.ok()) return done(r.error());
                  nlohmann::json result = {{"computer_id", record->computer_id}, {"removed", false}};
                  if (!r.value()) return done(result);
                  auto stop_token = record->expect_stop();
                  std::vector<std::string> base_image;
                  if (auto base = label_of(*r.value(), labels::kBaseImage, ""); !base.empty()) {
                    base_image.push_back(std::move(base));
                  }
                  remove_container(ctx, scope, container_name(record->computer_id),
                                   [&ctx, record, result, stop_token, base_image,
                                    done = std::move(done)](Expected<bool> removed) mutable {
                                     if (!removed.ok()) return done(removed.error());
                                     result["removed"] = removed.value();
                                     record->mark_removed();
                                     record->desktop_enabled.reset();
                                     // Its checkpoints go with it (and the tag it ran).
                                     auto forget = [&ctx, record, result,
                                                    done = std::move(done)]() mutable {
                                       forget_network_record(
                                           ctx, record->computer_id,
                                           [&ctx, result, done = std::move(done)](
                                               Expected<Done> forgotten) {
                                             if (!forgotten.ok()) {
                                               ctx.log.warn(forgotten.error().message);
                                             }
                                             done(result);
                                           });
                                     };
                                     delete_checkpoints_of(ctx, record->computer_id,
                                                           std::move(base_image),
                                                           std::move(forget));
                                   });
                });
}

namespace {

// Deletes the old container and creates the computer afresh from `request`.
// The tag of a checkpoint the old container ran (`old_base`) is deleted once it is gone; the
// checkpoints themselves stay.
void replace_computer(BackendContext& ctx, FlowScope scope, Record record, CreateRequest request,
                      std::string old_base, Callback<nlohmann::json> done) {
  auto stop_token = record->expect_stop();
  remove_container(ctx, scope, container_name(record->computer_id),
                   [&ctx, scope, record, stop_token, request = std::move(request),
                    old_base = std::move(old_base),
                    done = std::move(done)](Expected<bool> removed) mutable {
                     if (!removed.ok()) return done(removed.error());
                     if (!old_base.empty()) {
                       delete_images_quietly(ctx, {old_base}, [] {});
                     }
                     create_fresh(ctx, scope, record, std::move(request),
                                  holding(stop_token, std::move(done)));
                   });
}

}  // namespace

void run_factory_reset(BackendContext& ctx, FlowScope scope, Record record,
                       Callback<nlohmann::json> done) {
  with_existing(
      ctx, scope, record, std::move(done),
      [&ctx, scope, record](nlohmann::json old, Callback<nlohmann::json> finish) {
        CreateRequest request;
        request.spec.computer_id = record->computer_id;
        request.spec.image = label_of(old, labels::kImage, ctx.options.image);
        request.spec.temporary = label_of(old, labels::kTemporary, "false") == "true";
        request.spec.desktop_environment =
            record->desktop_enabled.value_or(label_of(old, labels::kDesktop, "false") == "true");
        request.spec.workspace_directory = label_of(old, labels::kWorkspace, "/workspace");
        request.spec.cpus = ctx.options.cpus;
        request.spec.memory_bytes = ctx.options.memory_bytes;
        request.spec.pids_limit = ctx.options.pids_limit;
        request.spec.harden = ctx.options.harden;
        request.spec.overrides = ctx.options.create_overrides;
        keep_mounts(old, request.spec, ctx.options.mount_owner);
        if (auto gone = missing_host_folder(request.spec.mounts, "reset"); !gone.empty()) {
          return finish(OpFailure{VC_E_FAILED, std::move(gone), nullptr});
        }
        request.network_access = has_network_access(attached_networks(old));
        request.shell = record->shell;
        // As before adopt_existing existed: a container of ours that appears under the name
        // between the delete and the create is taken, not a failed reset.
        request.adopt_existing = true;
        if (!is_desktop_capable(old)) {
          return replace_computer(ctx, scope, record, std::move(request),
                                  label_of(old, labels::kBaseImage, ""), std::move(finish));
        }
        // A desktop computer keeps its Xfce mode (as it is live, when it runs) and its network
        // switch (the record outlives the container).
        auto with_network = [&ctx, scope, record, finish,
                             old_base = label_of(old, labels::kBaseImage, "")](
                                CreateRequest next) mutable {
          read_network_blocked(ctx, scope, record->computer_id,
                               [&ctx, scope, record, next = std::move(next), old_base,
                                finish = std::move(finish)](Expected<bool> blocked) mutable {
                                 if (!blocked.ok()) return finish(blocked.error());
                                 next.network_access = !blocked.value();
                                 replace_computer(ctx, scope, record, std::move(next), old_base,
                                                  std::move(finish));
                               });
        };
        if (!is_running(old)) return with_network(std::move(request));
        read_desktop_state(
            ctx, scope, container_name(record->computer_id), std::chrono::seconds(0),
            [request = std::move(request), with_network](Expected<DesktopState> state) mutable {
              if (state.ok()) request.spec.desktop_environment = state.value().wanted;
              with_network(std::move(request));
            });
      });
}

namespace {

// The computer info of an inspected container. A desktop computer's network record is read,
// and its live Xfce state when it runs (`live_desktop` false: the last state seen is used).
void describe_container(BackendContext& ctx, const FlowScope& scope, const Record& record,
                        nlohmann::json container, bool live_desktop,
                        Callback<nlohmann::json> done) {
  if (!is_desktop_capable(container)) {
    return done(computer_info_from_inspect(container, ctx.options.image));
  }
  read_network_blocked(
      ctx, scope, record->computer_id,
      [&ctx, scope, record, container = std::move(container), live_desktop,
       done = std::move(done)](Expected<bool> blocked) mutable {
        if (!blocked.ok()) return done(blocked.error());
        DesktopFacts facts{record->desktop_enabled, blocked.value()};
        if (!live_desktop || !is_running(container)) {
          return done(computer_info_from_inspect(container, ctx.options.image, facts));
        }
        read_desktop_state(ctx, scope, container_name(record->computer_id),
                           std::chrono::seconds(0),
                           [&ctx, record, container, facts,
                            done = std::move(done)](Expected<DesktopState> state) mutable {
                             if (!state.ok()) return done(state.error());
                             record->desktop_enabled = state.value().enabled;
                             facts.enabled = state.value().enabled;
                             done(computer_info_from_inspect(container, ctx.options.image, facts));
                           });
      });
}

}  // namespace

void describe_again(BackendContext& ctx, const Record& record, bool live_desktop,
                    Callback<nlohmann::json> done) {
  with_existing(
      ctx, nullptr, record, std::move(done),
      [&ctx, record, live_desktop](nlohmann::json container, Callback<nlohmann::json> finish) {
        describe_container(ctx, nullptr, record, std::move(container), live_desktop,
                           std::move(finish));
      });
}


void run_set_network_access(BackendContext& ctx, FlowScope scope, Record record, bool enabled,
                            Callback<nlohmann::json> done) {
  with_existing(
      ctx, scope, record, std::move(done),
      [&ctx, scope, record, enabled](nlohmann::json container, Callback<nlohmann::json> finish) {
        if (is_cancelled(scope)) return finish(cancelled_failure());
        auto described = [&ctx, record,
                          finish = std::move(finish)](Expected<Done> applied) mutable {
          if (!applied.ok()) return finish(applied.error());
          describe_again(ctx, record, /*live_desktop=*/false, std::move(finish));
        };
        if (is_desktop_capable(container)) {
          if (!is_running(container)) {
            // The record alone: the rules go in at the next start.
            return record_network_blocked(ctx, record->computer_id, !enabled, std::move(described));
          }
          return set_egress_blocked(ctx, record->computer_id, container, !enabled,
                                    std::move(described));
        }
        auto steps = plan_network_change(attached_networks(container), enabled, ctx.profile);
        apply_network_plan(ctx, container_name(record->computer_id), std::move(steps), enabled,
                           std::move(described));
      });
}

void run_get_desktop_environment(BackendContext& ctx, FlowScope scope, Record record,
                                 Callback<nlohmann::json> done) {
  with_existing(ctx, scope, record, std::move(done),
                [&ctx, scope, record](nlohmann::json container, Callback<nlohmann::json> finish) {
                  describe_container(
                      ctx, scope, record, std::move(container), true,
                      [finish = std::move(finish)](Expected<nlohmann::json> info) {
                        if (!info.ok()) return finish(info.error());
                        finish(nlohmann::json{{"enabled", info.value()["desktop_environment"]},
                                              {"desktop_url", info.value()["desktop_url"]}});
                      });
                });
}

void run_set_desktop_environment(BackendContext& ctx, FlowScope scope, Record record,
                                 bool enabled, Callback<nlohmann::json> done) {
  with_existing(
      ctx, scope, record, std::move(done),
      [&ctx, scope, record, enabled](nlohmann::json container, Callback<nlohmann::json> finish) {
        if (!is_desktop_capable(container)) {
          // Off is what a headless computer always is.
          if (enabled) return finish(desktop_refused(ctx, record->computer_id));
          return describe_container(ctx, scope, record, std::move(container), false,
                                    std::move(finish));
        }
        if (!is_running(container)) {
          return finish(OpFailure{VC_E_COMPUTER_STOPPED,
                                  "Computer '" + record->computer_id +
                                      "' is not running, so its desktop cannot be switched; "
                                      "start it first (any command starts it).",
                                  error_details(ctx.profile, "computer_stopped", true)});
        }
        switch_desktop(
            ctx, scope, container_name(record->computer_id), enabled,
            [&ctx, record, finish = std::move(finish)](Expected<DesktopState> state) mutable {
              if (!state.ok()) return finish(state.error());
              record->desktop_enabled = state.value().enabled;
              describe_again(ctx, record, false, std::move(finish));
            });
      });
}

void run_list(BackendContext& ctx, FlowScope scope, Callback<nlohmann::json> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  // Desktop computers' network switches first (one call), then the containers.
  list_network_blocked(ctx, scope, [&ctx, scope, done = std::move(done)](
                                       Expected<std::set<std::string>> blocked) mutable {
    if (!blocked.ok()) return done(blocked.error());
    list_containers(ctx, scope, std::move(blocked.value()), std::move(done));
  });
}

void list_containers(BackendContext& ctx, const FlowScope& scope, std::set<std::string> blocked,
                     Callback<nlohmann::json> done) {
  nlohmann::json filters = {{"label", nlohmann::json::array({std::string(labels::kOwned) + "=true"})}};
  auto handle = ctx.client.get_json(
      engine::query_target("/containers/json", {{"all", "1"}, {"filters", filters.dump()}}),
      [&ctx, blocked = std::move(blocked),
       done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (!result.ok()) return done(ctx.engine_failure(result.error(), "list containers"));
        const auto& rows = result.value().body;
        if (!rows.is_array()) {
          return done(OpFailure{VC_E_FAILED,
                                "The " + ctx.profile.engine_display_name +
                                    " returned invalid computer inventory data.",
                                error_details(ctx.profile, "invalid_list", false)});
        }
        nlohmann::json computers = nlohmann::json::array();
        for (const auto& row : rows) {
          // A container is a computer only under its computer's own name: the one a restore
          // keeps aside (<name>.replaced) is not listed.
          if (!is_named_for_its_computer(row)) continue;
          DesktopFacts facts;
          if (auto id = labelled_computer_id(row)) {
            facts.network_blocked = blocked.count(*id) > 0;
            facts.enabled = ctx.computers.desktop_enabled_of(*id);
          }
          if (auto info = computer_info_from_list_row(row, ctx.options.image, facts)) {
            computers.push_back(std::move(*info));
          }
        }
        done(nlohmann::json{{"computers", std::move(computers)}});
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

}  // namespace vc::container
