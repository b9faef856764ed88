// checkpoint_flows.cpp — create, list, restore, fork and delete checkpoints of a computer.
#include "checkpoint_flows.h"

#include <chrono>
#include <ctime>
#include <memory>
#include <utility>
#include <vector>

#include "checkpoint_images.h"
#include "computer_info.h"
#include "computer_naming.h"
#include "desktop_access.h"
#include "desktop_mode.h"
#include "egress_firewall.h"

namespace vc::container {
namespace {

// Where a restore keeps the computer's old container until the new one answers.
std::string replaced_name(const std::string& computer_id) {
  return container_name(computer_id) + ".replaced";
}

std::int64_t unix_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "2026-12-07T17:02:03.123Z": millisecond precision, so checkpoints taken in one second sort.
std::string rfc3339_now() {
  const std::int64_t millis = unix_millis();
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char whole[32];
  std::strftime(whole, sizeof whole, "%Y-%m-%dT%H:%M:%S", &utc);
  char text[48];
  std::snprintf(text, sizeof text, "%s.%03dZ", whole, static_cast<int>(millis % 1000));
  return text;
}

// A tag no other container of the computer used: "<kind><unix ms>".
std::string fresh_tag(char kind) {
  std::string tag = std::to_string(unix_millis());
  tag.insert(tag.begin(), kind);
  return tag;
}

OpFailure checkpoint_missing(const BackendContext& ctx, const std::string& computer_id,
                             const std::string& name) {
  return OpFailure{VC_E_NOT_FOUND,
                   "Computer '" + computer_id + "' has no checkpoint named '" + name +
                       "'. List its checkpoints to see the names it has.",
                   error_details(ctx.profile, "checkpoint_not_found", false)};
}

std::optional<std::string> environment_value(const nlohmann::json& container,
                                             std::string_view key) {
  const auto config = container.find("Config");
  if (config == container.end() || !config->is_object()) return std::nullopt;
  const auto env = config->find("Env");
  if (env == config->end() || !env->is_array()) return std::nullopt;
  const std::string prefix = std::string(key) + "=";
  for (const auto& entry : *env) {
    if (entry.is_string() && entry.get_ref<const std::string&>().starts_with(prefix)) {
      return entry.get<std::string>().substr(prefix.size());
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> positive_host_setting(const nlohmann::json& container,
                                                  const char* key) {
  const auto host = container.find("HostConfig");
  if (host == container.end() || !host->is_object()) return std::nullopt;
  const auto value = host->find(key);
  if (value == host->end() || !value->is_number_integer() || value->get<std::int64_t>() <= 0) {
    return std::nullopt;
  }
  return value->get<std::int64_t>();
}

// What a container made again for this computer keeps of `container`: the image it was asked
// to be made from, the workspace, the limits it runs with, its desktop secret, its shell.
CreateRequest settings_of(const BackendContext& ctx, const Record& record,
                          const nlohmann::json& container) {
  CreateRequest request;
  request.spec.computer_id = record->computer_id;
  request.spec.image = label_of(container, labels::kImage, ctx.options.image);
  request.spec.temporary = label_of(container, labels::kTemporary, "false") == "true";
  request.spec.desktop_environment = label_of(container, labels::kDesktop, "false") == "true";
  request.spec.workspace_directory = label_of(container, labels::kWorkspace, "/workspace");
  if (auto nano = positive_host_setting(container, "NanoCpus")) {
    request.spec.cpus = static_cast<double>(*nano) / 1e9;
  }
  request.spec.memory_bytes = positive_host_setting(container, "Memory");
  request.spec.pids_limit = positive_host_setting(container, "PidsLimit");
  request.spec.harden = ctx.options.harden;
  request.spec.overrides = ctx.options.create_overrides;
  keep_mounts(container, request.spec, ctx.options.mount_owner);
  request.spec.desktop_token = environment_value(container, kDesktopTokenEnv).value_or("");
  request.shell = record->shell;
  return request;
}

// The Xfce mode the computer wants now: its marker when it runs, else the last state seen.
void wanted_desktop(BackendContext& ctx, const FlowScope& scope, const Record& record,
                    const nlohmann::json& container, Callback<bool> done) {
  if (!is_desktop_capable(container)) return done(false);
  const bool fallback = record->desktop_enabled.value_or(
      label_of(container, labels::kDesktop, "false") == "true");
  if (!is_running(container)) return done(fallback);
  read_desktop_state(ctx, scope, container_name(record->computer_id), std::chrono::seconds(0),
                     [done = std::move(done)](Expected<DesktopState> state) {
                       if (!state.ok()) return done(state.error());
                       done(state.value().wanted);
                     });
}

// Fills in the size of each image, one engine call after another.
void fill_sizes(BackendContext& ctx, FlowScope scope,
                std::shared_ptr<std::vector<CheckpointImage>> images, std::size_t index,
                Callback<Done> done) {
  if (index >= images->size()) return done(Done{});
  layer_size(ctx, scope, (*images)[index].image_id,
             [&ctx, scope, images, index, done = std::move(done)](Expected<std::int64_t> size) mutable {
               if (!size.ok()) return done(size.error());
               (*images)[index].size_bytes = size.value();
               fill_sizes(ctx, std::move(scope), images, index + 1, std::move(done));
             });
}

// The checkpoint's facts with its size, then `next` with its info document.
void with_size(BackendContext& ctx, const FlowScope& scope, CheckpointImage image,
               Callback<nlohmann::json> done, std::function<void(nlohmann::json)> next) {
  layer_size(ctx, scope, image.image_id,
             [image, done = std::move(done), next = std::move(next)](Expected<std::int64_t> size) mutable {
               if (!size.ok()) return done(size.error());
               image.size_bytes = size.value();
               next(checkpoint_info(image));
             });
}

}  // namespace

// --- create -------------------------------------------------------------------------------

void run_create_checkpoint(BackendContext& ctx, FlowScope scope, Record record, std::string name,
                           Callback<nlohmann::json> done) {
  with_existing(
      ctx, scope, record, std::move(done),
      [&ctx, scope, record, name](nlohmann::json container, Callback<nlohmann::json> finish) {
        list_checkpoint_images(
            ctx, scope, record->computer_id,
            [&ctx, scope, record, name, container = std::move(container),
             finish = std::move(finish)](Expected<std::vector<CheckpointImage>> listed) mutable {
              if (!listed.ok()) return finish(listed.error());
              const std::string& id = record->computer_id;
              for (const auto& existing : listed.value()) {
                if (existing.name != name) continue;
                return finish(OpFailure{
                    VC_E_ALREADY_EXISTS,
                    "Computer '" + id + "' already has a checkpoint named '" + name +
                        "' (taken " + existing.created +
                        "). Choose another name, or delete that checkpoint first to replace it.",
                    error_details(ctx.profile, "checkpoint_exists", false)});
              }
              const auto count = static_cast<std::int64_t>(listed.value().size());
              if (count >= ctx.options.max_checkpoints) {
                return finish(OpFailure{
                    VC_E_FAILED,
                    "Computer '" + id + "' has " + std::to_string(count) +
                        " checkpoints, the most it may keep (--max-checkpoints " +
                        std::to_string(ctx.options.max_checkpoints) +
                        "). Delete one it no longer needs first.",
                    error_details(ctx.profile, "checkpoint_limit", false)});
              }
              wanted_desktop(
                  ctx, scope, record, container,
                  [&ctx, scope, record, name, finish = std::move(finish)](Expected<bool> wanted) mutable {
                    if (!wanted.ok()) return finish(wanted.error());
                    CommitRequest commit{container_name(record->computer_id),
                                         checkpoint_repository(record->computer_id),
                                         name,
                                         record->computer_id,
                                         name,
                                         rfc3339_now(),
                                         wanted.value()};
                    commit_checkpoint(
                        ctx, scope, commit,
                        [&ctx, scope, record, commit,
                         finish = std::move(finish)](Expected<std::string> image_id) mutable {
                          if (!image_id.ok()) return finish(image_id.error());
                          CheckpointImage image{image_id.value(), commit.name,
                                                commit.computer_id, commit.created,
                                                commit.desktop_environment};
                          with_size(ctx, scope, std::move(image), finish,
                                    [&ctx, record, finish](nlohmann::json info) mutable {
                                      describe_again(
                                          ctx, record, false,
                                          [info = std::move(info), finish = std::move(finish)](
                                              Expected<nlohmann::json> computer) {
                                            if (!computer.ok()) return finish(computer.error());
                                            finish(nlohmann::json{{"checkpoint", info},
                                                                  {"computer", computer.value()}});
                                          });
                                    });
                        });
                  });
            });
      });
}

// --- list ---------------------------------------------------------------------------------

void run_list_checkpoints(BackendContext& ctx, FlowScope scope, Record record,
                          Callback<nlohmann::json> done) {
  with_existing(
      ctx, scope, record, std::move(done),
      [&ctx, scope, record](nlohmann::json, Callback<nlohmann::json> finish) {
        list_checkpoint_images(
            ctx, scope, record->computer_id,
            [&ctx, scope, record, finish = std::move(finish)](
                Expected<std::vector<CheckpointImage>> listed) mutable {
              if (!listed.ok()) return finish(listed.error());
              auto images = std::make_shared<std::vector<CheckpointImage>>(std::move(listed.value()));
              fill_sizes(ctx, scope, images, 0,
                         [record, images, finish = std::move(finish)](Expected<Done> sized) {
                           if (!sized.ok()) return finish(sized.error());
                           nlohmann::json checkpoints = nlohmann::json::array();
                           for (const auto& image : *images) {
                             checkpoints.push_back(checkpoint_info(image));
                           }
                           finish(nlohmann::json{{"computer_id", record->computer_id},
                                                 {"checkpoints", std::move(checkpoints)}});
                         });
            });
      });
}

// --- restore ------------------------------------------------------------------------------

namespace {

class RestoreCheckpoint : public std::enable_shared_from_this<RestoreCheckpoint> {
 public:
  RestoreCheckpoint(BackendContext& ctx, FlowScope scope, Record record, std::string name,
                    Callback<nlohmann::json> done)
      : ctx_(ctx), scope_(std::move(scope)), record_(std::move(record)), name_(std::move(name)),
        done_(std::move(done)), container_(container_name(record_->computer_id)),
        replaced_(replaced_name(record_->computer_id)) {}

  void run() {
    with_existing(ctx_, scope_, record_, done_,
                  [self = shared_from_this()](nlohmann::json old, Callback<nlohmann::json>) {
                    self->old_ = std::move(old);
                    self->old_id_ = self->old_.value("Id", std::string());
                    self->find();
                  });
  }

 private:
  void find() {
    find_checkpoint(ctx_, scope_, record_->computer_id, name_,
                    [self = shared_from_this()](Expected<std::optional<CheckpointImage>> found) {
                      if (!found.ok()) return self->done_(found.error());
                      if (!found.value()) {
                        return self->done_(
                            checkpoint_missing(self->ctx_, self->record_->computer_id, self->name_));
                      }
                      with_size(self->ctx_, self->scope_, *found.value(), self->done_,
                                [self, image_id = found.value()->image_id](nlohmann::json info) {
                                  self->info_ = std::move(info);
                                  self->gather_settings(image_id);
                                });
                    });
  }

  // The old container's settings, live desktop mode and network state.
  void gather_settings(std::string image_id) {
    request_ = settings_of(ctx_, record_, old_);
    wanted_desktop(ctx_, scope_, record_, old_,
                   [self = shared_from_this(), image_id](Expected<bool> wanted) {
                     if (!wanted.ok()) return self->done_(wanted.error());
                     self->request_.spec.desktop_environment = wanted.value();
                     if (!is_desktop_capable(self->old_)) {
                       self->request_.network_access =
                           has_network_access(attached_networks(self->old_));
                       return self->tag_base(image_id);
                     }
                     read_network_blocked(self->ctx_, self->scope_, self->record_->computer_id,
                                          [self, image_id](Expected<bool> blocked) {
                                            if (!blocked.ok()) return self->done_(blocked.error());
                                            self->request_.network_access = !blocked.value();
                                            self->tag_base(image_id);
                                          });
                   });
  }

  void tag_base(const std::string& image_id) {
    const std::string tag = fresh_tag('r');
    tag_image(ctx_, scope_, image_id, base_repository(record_->computer_id), tag,
              [self = shared_from_this(), tag](Expected<Done> tagged) {
                if (!tagged.ok()) return self->done_(tagged.error());
                self->request_.spec.base_image = base_repository(self->record_->computer_id) + ":" + tag;
                self->set_old_aside();
              });
  }

  // From here on the death watch must stay quiet: the stops are ours.
  void set_old_aside() {
    stop_token_ = record_->expect_stop();
    // A leftover of an earlier restore whose cleanup failed (the computer itself exists).
    remove_container(ctx_, scope_, replaced_, [self = shared_from_this()](Expected<bool> cleared) {
      if (!cleared.ok()) return self->give_up(cleared.error());
      // A temporary computer's container is removed by the engine when it stops: it waits
      // aside running instead (its command line to the plugin is closed all the same).
      const auto host_config = self->old_.value("HostConfig", nlohmann::json::object());
      if (host_config.is_object() && host_config.value("AutoRemove", false)) {
        return self->rename_old();
      }
      stop_container(self->ctx_, self->scope_, self->container_, [self](Expected<Done> stopped) {
        if (!stopped.ok()) return self->roll_back(stopped.error());
        self->rename_old();
      });
    });
  }

  void rename_old() {
    rename_container(ctx_, scope_, container_, replaced_,
                     [self = shared_from_this()](Expected<Done> renamed) {
                       if (!renamed.ok()) return self->roll_back(renamed.error());
                       self->renamed_ = true;
                       self->create_new();
                     });
  }

  void create_new() {
    create_fresh(ctx_, scope_, record_, request_,
                 [self = shared_from_this()](Expected<nlohmann::json> computer) {
                   if (!computer.ok()) return self->roll_back(computer.error());
                   self->remove_old(computer.value());
                 });
  }

  void remove_old(nlohmann::json computer) {
    remove_container(ctx_, nullptr, replaced_,
                     [self = shared_from_this(), computer = std::move(computer)](Expected<bool> removed) {
                       if (!removed.ok()) {
                         self->ctx_.log.warn("Could not remove container " + self->replaced_ +
                                             " after a restore: " + removed.error().message);
                       }
                       std::vector<std::string> unused;
                       if (auto base = label_of(self->old_, labels::kBaseImage, ""); !base.empty()) {
                         unused.push_back(std::move(base));
                       }
                       delete_images_quietly(self->ctx_, std::move(unused), [self, computer] {
                         self->finish(nlohmann::json{{"checkpoint", self->info_},
                                                     {"computer", computer}});
                       });
                     });
  }

  // Nothing was changed yet: the failure as it is, and the base tag made for it goes.
  void give_up(OpFailure failure) {
    forget_new_base();
    finish(std::move(failure));
  }

  // Puts the old container back: the new one (if any) removed, the old renamed back and
  // brought up as it was. Steps that must not be interrupted: no scope.
  void roll_back(OpFailure failure) {
    failure.message = "Restoring checkpoint '" + name_ + "' of computer '" +
                      record_->computer_id + "' failed: " + failure.message;
    inspect_container(ctx_, nullptr, container_,
                      [self = shared_from_this(), failure](Expected<std::optional<nlohmann::json>> r) {
                        // Only the container this restore created is removed: one that took
                        // the name meanwhile is somebody else's.
                        const std::string found =
                            r.ok() && r.value() ? r.value()->value("Id", std::string()) : "";
                        const bool new_one = !found.empty() && found != self->old_id_ &&
                                             found == self->record_->container_id;
                        if (!new_one) return self->rename_back(failure);
                        remove_container(self->ctx_, nullptr, self->container_,
                                         [self, failure](Expected<bool> removed) {
                                           if (!removed.ok()) {
                                             return self->rollback_failed(failure, removed.error());
                                           }
                                           self->rename_back(failure);
                                         });
                      });
  }

  void rename_back(OpFailure failure) {
    forget_new_base();
    if (!renamed_) return start_old(std::move(failure));
    rename_container(ctx_, nullptr, replaced_, container_,
                     [self = shared_from_this(), failure](Expected<Done> renamed) {
                       if (!renamed.ok()) return self->rollback_failed(failure, renamed.error());
                       self->start_old(failure);
                     });
  }

  void start_old(OpFailure failure) {
    with_existing(ctx_, nullptr, record_,
                  [self = shared_from_this(), failure](Expected<nlohmann::json> back) mutable {
                    if (!back.ok()) return self->rollback_failed(failure, back.error());
                    failure.message += " The computer was left as it was.";
                    self->finish(std::move(failure));
                  },
                  [self = shared_from_this()](nlohmann::json old, Callback<nlohmann::json> finish) {
                    bring_up(self->ctx_, nullptr, self->record_, self->record_->shell,
                             std::nullopt, std::nullopt, std::move(old), std::move(finish));
                  });
  }

  void rollback_failed(OpFailure failure, const OpFailure& rollback) {
    failure.message += " Putting the computer's previous container back failed too (" +
                       rollback.message + "); it is kept as container " + replaced_ +
                       " (rename it to " + container_ + " to get it back).";
    finish(std::move(failure));
  }

  void forget_new_base() {
    if (request_.spec.base_image.empty()) return;
    delete_images_quietly(ctx_, {request_.spec.base_image}, [] {});
    request_.spec.base_image.clear();
  }

  void finish(Expected<nlohmann::json> outcome) {
    auto done = std::move(done_);
    done_ = nullptr;
    stop_token_.reset();
    if (done) done(std::move(outcome));
  }

  BackendContext& ctx_;
  FlowScope scope_;
  Record record_;
  std::string name_;
  Callback<nlohmann::json> done_;
  std::string container_;
  std::string replaced_;
  nlohmann::json old_;
  std::string old_id_;
  nlohmann::json info_;
  CreateRequest request_;
  bool renamed_ = false;
  std::shared_ptr<ComputerRecord::ExpectedStop> stop_token_;
};

}  // namespace

void run_restore_checkpoint(BackendContext& ctx, FlowScope scope, Record record, std::string name,
                            Callback<nlohmann::json> done) {
  std::make_shared<RestoreCheckpoint>(ctx, std::move(scope), std::move(record), std::move(name),
                                      std::move(done))
      ->run();
}

// --- fork ---------------------------------------------------------------------------------

namespace {

// Makes the target computer from `base` (a tag made for it) with the source's settings.
void create_fork(BackendContext& ctx, const FlowScope& scope, const Record& source,
                 const Record& target, const nlohmann::json& source_container, std::string base,
                 bool desktop_environment, nlohmann::json checkpoint,
                 Callback<nlohmann::json> done) {
  CreateRequest request = settings_of(ctx, source, source_container);
  request.spec.computer_id = target->computer_id;
  request.spec.base_image = base;
  request.spec.desktop_environment = desktop_environment;
  request.spec.desktop_token.clear();  // a secret of its own
  request.network_access = true;
  target->shell = source->shell;
  create_fresh(ctx, scope, target, std::move(request),
               [&ctx, base, checkpoint = std::move(checkpoint),
                done = std::move(done)](Expected<nlohmann::json> computer) {
                 if (!computer.ok()) {
                   return delete_images_quietly(ctx, {base}, [done, failure = computer.error()] {
                     done(failure);
                   });
                 }
                 done(nlohmann::json{{"checkpoint", checkpoint}, {"computer", computer.value()}});
               });
}

void fork_named(BackendContext& ctx, const FlowScope& scope, const Record& source,
                const Record& target, nlohmann::json source_container, const std::string& name,
                Callback<nlohmann::json> done) {
  find_checkpoint(
      ctx, scope, source->computer_id, name,
      [&ctx, scope, source, target, name, source_container = std::move(source_container),
       done = std::move(done)](Expected<std::optional<CheckpointImage>> found) mutable {
        if (!found.ok()) return done(found.error());
        if (!found.value()) return done(checkpoint_missing(ctx, source->computer_id, name));
        const CheckpointImage image = *found.value();
        with_size(ctx, scope, image, done,
                  [&ctx, scope, source, target, image, source_container,
                   done](nlohmann::json info) mutable {
                    const std::string tag = fresh_tag('f');
                    const std::string repository = base_repository(target->computer_id);
                    tag_image(ctx, scope, image.image_id, repository, tag,
                              [&ctx, scope, source, target, image, source_container, repository,
                               tag, info = std::move(info),
                               done = std::move(done)](Expected<Done> tagged) mutable {
                                if (!tagged.ok()) return done(tagged.error());
                                create_fork(ctx, scope, source, target, source_container,
                                            repository + ":" + tag, image.desktop_environment,
                                            std::move(info), std::move(done));
                              });
                  });
      });
}

void fork_current(BackendContext& ctx, const FlowScope& scope, const Record& source,
                  const Record& target, nlohmann::json source_container,
                  Callback<nlohmann::json> done) {
  wanted_desktop(
      ctx, scope, source, source_container,
      [&ctx, scope, source, target, source_container,
       done = std::move(done)](Expected<bool> wanted) mutable {
        if (!wanted.ok()) return done(wanted.error());
        // Not a checkpoint of the source (no checkpoint-of label): the fork's own base.
        CommitRequest commit{container_name(source->computer_id),
                             base_repository(target->computer_id),
                             fresh_tag('f'),
                             "",
                             "",
                             rfc3339_now(),
                             wanted.value()};
        commit_checkpoint(ctx, scope, commit,
                          [&ctx, scope, source, target, source_container, commit,
                           done = std::move(done)](Expected<std::string> image_id) mutable {
                            if (!image_id.ok()) return done(image_id.error());
                            create_fork(ctx, scope, source, target, source_container,
                                        commit.repository + ":" + commit.tag,
                                        commit.desktop_environment, nullptr, std::move(done));
                          });
      });
}

}  // namespace

void run_fork_checkpoint(BackendContext& ctx, FlowScope scope, Record source, Record target,
                         std::optional<std::string> name, Callback<nlohmann::json> done) {
  inspect_container(
      ctx, scope, container_name(target->computer_id),
      [&ctx, scope, source, target, name = std::move(name),
       done = std::move(done)](Expected<std::optional<nlohmann::json>> taken) mutable {
        if (!taken.ok()) return done(taken.error());
        if (taken.value()) {
          return done(OpFailure{VC_E_ALREADY_EXISTS,
                                "Computer '" + target->computer_id +
                                    "' already exists; choose another new_computer_id for the "
                                    "fork.",
                                error_details(ctx.profile, "computer_exists", false)});
        }
        with_existing(ctx, scope, source, std::move(done),
                      [&ctx, scope, source, target, name](nlohmann::json container,
                                                          Callback<nlohmann::json> finish) {
                        if (is_cancelled(scope)) return finish(cancelled_failure());
                        if (name) {
                          return fork_named(ctx, scope, source, target, std::move(container),
                                            *name, std::move(finish));
                        }
                        fork_current(ctx, scope, source, target, std::move(container),
                                     std::move(finish));
                      });
      });
}

// --- delete -------------------------------------------------------------------------------

void run_delete_checkpoint(BackendContext& ctx, FlowScope scope, Record record, std::string name,
                           Callback<nlohmann::json> done) {
  find_checkpoint(
      ctx, scope, record->computer_id, name,
      [&ctx, scope, record, name,
       done = std::move(done)](Expected<std::optional<CheckpointImage>> found) mutable {
        if (!found.ok()) return done(found.error());
        if (!found.value()) return done(checkpoint_missing(ctx, record->computer_id, name));
        delete_image(ctx, scope, checkpoint_reference(record->computer_id, name),
                     [record, name, done = std::move(done)](Expected<bool> deleted) {
                       if (!deleted.ok()) return done(deleted.error());
                       done(nlohmann::json{{"computer_id", record->computer_id},
                                           {"name", name},
                                           {"deleted", true}});
                     });
      });
}

}  // namespace vc::container
