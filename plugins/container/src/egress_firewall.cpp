// egress_firewall.cpp — the network-off record and the firewall helper container.
#include "egress_firewall.h"

#include <memory>
#include <utility>

#include <vc_engine/stream_demuxer.h>
#include <vc_engine/url.h>

#include "computer_info.h"
#include "computer_naming.h"

namespace vc::container {
namespace {

constexpr const char* kFirewallCommand = "/usr/local/lib/mcp-virtual-computer/egress-firewall";
// The helper's whole run: create, start, wait, remove.
constexpr std::chrono::seconds kHelperDeadline{60};

std::string helper_name(const std::string& computer_id) {
  return std::string(kContainerNamePrefix) + computer_id + ".firewall";
}

std::string string_at(const nlohmann::json& document, const char* key) {
  auto it = document.find(key);
  return it != document.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One run of the image's egress-firewall script in the computer's network namespace.
class FirewallHelper : public std::enable_shared_from_this<FirewallHelper> {
 public:
  FirewallHelper(BackendContext& ctx, std::string computer_id, std::string container_id,
                 std::string image, bool block, Callback<Done> done)
      : ctx_(ctx), computer_id_(std::move(computer_id)), container_id_(std::move(container_id)),
        image_(std::move(image)), block_(block), done_(std::move(done)),
        name_(helper_name(computer_id_)) {}

  void run() { create(/*retry=*/true); }

 private:
  nlohmann::json document() const {
    return {
        {"Image", image_},
        {"Entrypoint", nlohmann::json::array({kFirewallCommand})},
        {"Cmd", nlohmann::json::array({block_ ? "block" : "allow"})},
        {"User", "0"},
        {"Labels", {{labels::kFirewallFor, computer_id_}}},
        {"AttachStdout", false},
        {"AttachStderr", false},
        {"HostConfig",
         {{"NetworkMode", "container:" + container_id_},
          {"CapAdd", nlohmann::json::array({"NET_ADMIN"})},
          {"AutoRemove", false}}},
    };
  }

  void create(bool retry) {
    create_container(ctx_, nullptr, name_, document(),
                     [self = shared_from_this(), retry](Expected<std::string> id) {
                       if (id.ok()) {
                         self->helper_id_ = id.value();
                         return self->start();
                       }
                       if (retry && id.error().status == VC_E_ALREADY_EXISTS) {
                         // A helper left behind by an interrupted switch: replace it.
                         return remove_container(self->ctx_, nullptr, self->name_,
                                                 [self](Expected<bool> removed) {
                                                   if (!removed.ok()) {
                                                     return self->fail(removed.error().message);
                                                   }
                                                   self->create(false);
                                                 });
                       }
                       self->fail(id.error().message);
                     });
  }

  void start() {
    start_container(ctx_, nullptr, helper_id_, [self = shared_from_this()](Expected<Done> r) {
      if (!r.ok()) return self->cleanup(r.error().message);
      self->wait();
    });
  }

  void wait() {
    if (ctx_.shutting_down) return done_(cancelled_failure());
    engine::RequestOptions deadlines = engine::RequestOptions::unbounded();
    deadlines.timeout = kHelperDeadline;
    ctx_.client.long_poll_json(
        "POST",
        "/containers/" + engine::url_encode(helper_id_) + "/wait?condition=not-running",
        std::nullopt, nullptr,
        [self = shared_from_this()](engine::Result<engine::JsonResponse> r) {
          if (!r.ok()) {
            return self->cleanup(
                self->ctx_.engine_failure(r.error(), "wait for the firewall helper").message);
          }
          const auto& body = r.value().body;
          auto code = body.is_object() ? body.find("StatusCode") : body.end();
          if (!body.is_object() || code == body.end() || !code->is_number_integer()) {
            return self->cleanup("the engine's answer to the wait had no StatusCode");
          }
          if (code->get<std::int64_t>() == 0) return self->cleanup(std::nullopt);
          self->read_logs(code->get<std::int64_t>());
        },
        deadlines);
  }

  void read_logs(std::int64_t exit_code) {
    engine::HttpRequest request;
    request.target = ctx_.client.api_target("/containers/" + engine::url_encode(helper_id_) +
                                            "/logs?stdout=1&stderr=1&tail=20");
    ctx_.client.request(
        std::move(request),
        [self = shared_from_this(), exit_code](engine::Result<engine::HttpResponse> r) {
          std::string said;
          if (r.ok() && r.value().status == 200) {
            engine::StreamDemuxer demuxer(/*framed=*/true);
            demuxer.feed(r.value().body, [&said](engine::StreamKind, std::string_view bytes) {
              said.append(bytes);
            });
          }
          while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
          self->cleanup("the firewall script exited with " + std::to_string(exit_code) +
                        (said.empty() ? std::string() : ": " + said));
        },
        ctx_.call_deadlines());
  }


  // The helper goes in every case; then the outcome is reported (`failure`: why it failed).
  void cleanup(std::optional<std::string> failure) {
    remove_container(ctx_, nullptr, helper_id_.empty() ? name_ : helper_id_,
                     [self = shared_from_this(), failure](Expected<bool> removed) {
                       if (!removed.ok()) {
                         self->ctx_.log.warn("Removing the firewall helper " + self->name_ +
                                             " failed: " + removed.error().message);
                       }
                       if (failure) return self->fail(*failure);
                       self->done_(Done{});
                     });
  }

  void fail(const std::string& why) {
    done_(OpFailure{VC_E_FAILED,
                    "Could not turn network access " + std::string(block_ ? "off" : "on") +
                        " for computer '" + computer_id_ + "': " + why +
                        ". Rebuild the bundled desktop image (it carries the firewall) and retry.",
                    error_details(ctx_.profile, "firewall_failed", true)});
  }

  BackendContext& ctx_;
  std::string computer_id_;
  std::string container_id_;
  std::string image_;
  bool block_;
  Callback<Done> done_;
  std::string name_;
  std::string helper_id_;
};

void run_firewall(BackendContext& ctx, const std::string& computer_id,
                  const nlohmann::json& container, bool block, Callback<Done> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  // The image id, not the tag: the computer's own image, even after the tag was rebuilt.
  std::string image = string_at(container, "Image");
  std::string id = string_at(container, "Id");
  if (image.empty() || id.empty()) {
    return done(OpFailure{VC_E_FAILED, "The engine's inspect data of computer '" + computer_id +
                                           "' has no Id or Image.",
                          error_details(ctx.profile, "invalid_inspect", false)});
  }
  std::make_shared<FirewallHelper>(ctx, computer_id, id, image, block, std::move(done))->run();
}

void create_record(BackendContext& ctx, const std::string& computer_id, Callback<Done> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  nlohmann::json body = {{"Name", network_off_record_name(computer_id)},
                         {"Labels", {{labels::kNetworkOffFor, computer_id}}}};
  ctx.client.post_json("/volumes/create", body,
                       [&ctx, done = std::move(done)](engine::Result<engine::JsonResponse> r) {
                         if (!r.ok()) {
                           return done(ctx.engine_failure(r.error(), "record the network state"));
                         }
                         done(Done{});
                       },
                       ctx.call_deadlines());
}

}  // namespace

std::string network_off_record_name(const std::string& computer_id) {
  return std::string(kContainerNamePrefix) + computer_id + ".network-off";
}

void read_network_blocked(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                          const std::string& computer_id, Callback<bool> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.get_json(
      "/volumes/" + engine::url_encode(network_off_record_name(computer_id)),
      [&ctx, done = std::move(done)](engine::Result<engine::JsonResponse> r) {
        if (r.ok()) return done(true);
        if (r.error().kind == engine::EngineErrorKind::kHttpStatus && r.error().http_status == 404) {
          return done(false);
        }
        done(ctx.engine_failure(r.error(), "read the network state"));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void list_network_blocked(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                          Callback<std::set<std::string>> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  nlohmann::json filters = {{"label", nlohmann::json::array({labels::kNetworkOffFor})}};
  auto handle = ctx.client.get_json(
      engine::query_target("/volumes", {{"filters", filters.dump()}}),
      [&ctx, done = std::move(done)](engine::Result<engine::JsonResponse> r) {
        if (!r.ok()) return done(ctx.engine_failure(r.error(), "list network states"));
        std::set<std::string> blocked;
        const auto& body = r.value().body;
        auto volumes = body.is_object() ? body.find("Volumes") : body.end();
        if (body.is_object() && volumes != body.end() && volumes->is_array()) {
          for (const auto& volume : *volumes) {
            const auto& volume_labels = volume.is_object() && volume.contains("Labels")
                                            ? volume.at("Labels")
                                            : nlohmann::json();
            if (!volume_labels.is_object()) continue;
            auto owner = volume_labels.find(labels::kNetworkOffFor);
            if (owner != volume_labels.end() && owner->is_string() &&
                string_at(volume, "Name") == network_off_record_name(owner->get<std::string>())) {
              blocked.insert(owner->get<std::string>());
            }
          }
        }
        done(std::move(blocked));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void set_egress_blocked(BackendContext& ctx, const std::string& computer_id,
                        const nlohmann::json& container, bool blocked, Callback<Done> done) {
  if (blocked) {
    // Record first: a computer that restarts meanwhile comes back blocked.
    return create_record(ctx, computer_id,
                         [&ctx, computer_id, container, done = std::move(done)](Expected<Done> r) {
                           if (!r.ok()) return done(r.error());
                           run_firewall(ctx, computer_id, container, true,
                                        [&ctx, computer_id, done](Expected<Done> applied) {
                                          if (applied.ok()) return done(Done{});
                                          forget_network_record(
                                              ctx, computer_id,
                                              [applied, done](Expected<Done>) {
                                                done(applied.error());
                                              });
                                        });
                         });
  }
  run_firewall(ctx, computer_id, container, false,
               [&ctx, computer_id, done = std::move(done)](Expected<Done> applied) {
                 if (!applied.ok()) return done(applied.error());
                 forget_network_record(ctx, computer_id, done);
               });
}

void reapply_egress(BackendContext& ctx, const std::string& computer_id,
                    const nlohmann::json& container, Callback<bool> done) {
  read_network_blocked(ctx, nullptr, computer_id,
                       [&ctx, computer_id, container, done = std::move(done)](Expected<bool> r) {
                         if (!r.ok()) return done(r.error());
                         if (!r.value()) return done(false);
                         run_firewall(ctx, computer_id, container, true,
                                      [done](Expected<Done> applied) {
                                        if (!applied.ok()) return done(applied.error());
                                        done(true);
                                      });
                       });
}

void record_network_blocked(BackendContext& ctx, const std::string& computer_id, bool blocked,
                            Callback<Done> done) {
  if (blocked) return create_record(ctx, computer_id, std::move(done));
  forget_network_record(ctx, computer_id, std::move(done));
}

void forget_network_record(BackendContext& ctx, const std::string& computer_id,
                           Callback<Done> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  ctx.client.delete_json(
      "/volumes/" + engine::url_encode(network_off_record_name(computer_id)),
      [&ctx, done = std::move(done)](engine::Result<engine::JsonResponse> r) {
        if (r.ok() || (r.error().kind == engine::EngineErrorKind::kHttpStatus &&
                       r.error().http_status == 404)) {
          return done(Done{});
        }
        done(ctx.engine_failure(r.error(), "clear the network state record"));
      },
      ctx.call_deadlines());
}

}  // namespace vc::container
