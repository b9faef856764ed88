// exec_agent_install.cpp — the agent's archive and its copy into a container.
#include "exec_agent_install.h"

#include <vc_engine/url.h>

#include "engine_failure.h"
#include "tar_archive.h"

namespace vc::container {

Expected<std::string> exec_agent_archive_of(std::string_view program) {
  TarArchive tar;
  if (auto added = tar.add_folder(kExecAgentFolderInComputer, 0755); !added.ok()) {
    return added.error();
  }
  const std::string file = std::string(kExecAgentFolderInComputer) + "/" +
                           std::string(kExecAgentFileName);
  if (auto added = tar.add_file(file, 0555, program); !added.ok()) return added.error();
  return tar.finish();
}

void install_exec_agent(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                        const std::string& container, std::string archive, Callback<Done> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  engine::HttpRequest request;
  request.method = "PUT";
  request.target = ctx.client.api_target(engine::query_target(
      "/containers/" + engine::url_encode(container) + "/archive", {{"path", "/"}}));
  request.content_type = "application/x-tar";
  request.body = std::move(archive);
  auto handle = ctx.client.request(
      std::move(request),
      [&ctx, container, done = std::move(done)](engine::Result<engine::HttpResponse> result) {
        if (!result.ok()) {
          return done(ctx.engine_failure(result.error(),
                                         "copy the exec agent into container " + container));
        }
        const auto& response = result.value();
        if (response.status >= 200 && response.status < 300) return done(Done{});
        // Docker: 403 "container rootfs is marked read-only"; both engines say why in
        // "message" (or in a plain body).
        const auto body = nlohmann::json::parse(response.body, nullptr, false);
        const std::string reason = body.is_object() && body.contains("message") &&
                                           body["message"].is_string()
                                       ? body["message"].get<std::string>()
                                       : response.body.substr(0, 300);
        done(OpFailure{VC_E_UNSUPPORTED,
                       "The " + ctx.profile.engine_display_name +
                           " refused to copy the exec agent into container " + container +
                           " (HTTP " + std::to_string(response.status) + ": " + reason + ").",
                       nlohmann::json{{"code", "exec_agent.install_refused"}}});
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

}  // namespace vc::container
