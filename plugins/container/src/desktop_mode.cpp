// desktop_mode.cpp — vc-desktop through helper execs.
#include "desktop_mode.h"

#include <utility>

#include "helper_exec.h"

namespace vc::container {
namespace {

constexpr const char* kDesktopCommand = "/usr/local/bin/vc-desktop";
constexpr int kNotLiveInTime = 3;
// The exec itself gets this much beyond the wait it asks vc-desktop for.
constexpr std::chrono::seconds kExecSlack{10};

std::optional<DesktopState> parse_state(const std::string& text) {
  auto document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return std::nullopt;
  auto flag = [&document](const char* key) {
    auto it = document.find(key);
    return it != document.end() && it->is_boolean() && it->get<bool>();
  };
  return DesktopState{flag("wanted"), flag("enabled"), flag("live")};
}

OpFailure desktop_failure(const BackendContext& ctx, std::string message, const char* code) {
  return OpFailure{VC_E_FAILED, std::move(message), error_details(ctx.profile, code, false)};
}

void run_vc_desktop(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                    const std::string& container, std::vector<std::string> argv,
                    std::chrono::seconds wait, Callback<std::pair<std::int64_t, DesktopState>> done) {
  HelperExecRequest request;
  request.container = container;
  request.argv = std::move(argv);
  request.user = "0";
  request.timeout = wait + kExecSlack;
  run_helper_exec(ctx, scope, std::move(request),
                  [&ctx, container, done = std::move(done)](Expected<HelperExecResult> result) {
                    if (!result.ok()) return done(result.error());
                    const auto& ran = result.value();
                    auto state = parse_state(ran.stdout_text);
                    if ((ran.exit_code == 0 || ran.exit_code == kNotLiveInTime) && state) {
                      return done(std::make_pair(ran.exit_code, *state));
                    }
                    std::string said = ran.stderr_text.empty() ? ran.stdout_text : ran.stderr_text;
                    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
                    done(desktop_failure(
                        ctx,
                        "The desktop supervisor of container " + container +
                            " did not answer (vc-desktop exited with " +
                            std::to_string(ran.exit_code) + (said.empty() ? "" : ": " + said) +
                            "). Its image may be damaged; a factory reset rebuilds it from the "
                            "bundled image.",
                        "desktop_supervisor_failed"));
                  });
}

}  // namespace

void read_desktop_state(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                        const std::string& container, std::chrono::seconds wait,
                        Callback<DesktopState> done) {
  run_vc_desktop(ctx, scope, container,
                 {kDesktopCommand, "wait", "--wait", std::to_string(wait.count())}, wait,
                 [done = std::move(done)](Expected<std::pair<std::int64_t, DesktopState>> r) {
                   if (!r.ok()) return done(r.error());
                   done(r.value().second);
                 });
}

void switch_desktop(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                    const std::string& container, bool enabled, Callback<DesktopState> done) {
  run_vc_desktop(
      ctx, scope, container,
      {kDesktopCommand, "set", enabled ? "on" : "off", "--wait",
       std::to_string(kDesktopSwitchTimeout.count())},
      kDesktopSwitchTimeout,
      [&ctx, enabled, done = std::move(done)](Expected<std::pair<std::int64_t, DesktopState>> r) {
        if (!r.ok()) return done(r.error());
        if (r.value().first == kNotLiveInTime) {
          return done(desktop_failure(
              ctx,
              std::string("Xfce did not ") + (enabled ? "start" : "stop") + " within " +
                  std::to_string(kDesktopSwitchTimeout.count()) +
                  " seconds. The computer itself is still running and was not replaced.",
              enabled ? "desktop_start_timeout" : "desktop_stop_timeout"));
        }
        done(r.value().second);
      });
}

}  // namespace vc::container
