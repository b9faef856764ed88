// computer_status_tools.cpp — computer_ui, runtime_status, set_network_access,
// set_desktop_environment.
#include "tools/computer_status_tools.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/utf8_repair.h"
#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "tools/tool_call_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

using computers::ComputerInfo;

// The runtime_* fields (docs/compatibility.md, "computer_ui and runtime_status"). Preparing a
// container runtime is a Windows-only step of
// the original; here the runtime is ready from the start, and what the fields show while the
// computer is being set up (the desktop image building, the computer starting) is that
// setup's progress, on the original's 0-4 scale, so a client polling runtime_status sees it.
// runtime_error says why the engine cannot be reached while that is the last word on it (the
// engine stopped or restarting), so a client polling the status sees the outage.
void add_runtime_fields(Json& payload, const std::optional<computers::ProgressEvent>& setup,
                        const std::optional<std::string>& engine_failure) {
  constexpr double kScale = 4.0;
  payload["runtime_state"] = setup ? "working" : "ready";
  payload["runtime_phase"] = setup ? "preparing_computer" : "ready";
  payload["runtime_message"] =
      setup ? setup->message : std::string("Container runtime bootstrap is not required.");
  double fraction = 1.0;
  if (setup) {
    fraction = setup->total && *setup->total > 0 ? setup->progress / *setup->total : 0.0;
    fraction = std::clamp(fraction, 0.0, 0.99);
  }
  payload["runtime_progress"] = fraction * kScale;
  payload["runtime_total"] = kScale;
  payload["downloaded_bytes"] = nullptr;
  payload["download_total_bytes"] = nullptr;
  payload["runtime_error"] = engine_failure ? Json(*engine_failure) : Json();
}

Json desktop_url_of(const std::optional<ComputerInfo>& computer) {
  return computer && computer->desktop_url ? Json(*computer->desktop_url) : Json();
}

// A backend's sentence about the computer, as the user sees it: bounded, null when it said
// nothing (or the computer is not known).
constexpr std::size_t kBackendSentenceLimit = 1024;
Json backend_sentence(const std::optional<ComputerInfo>& computer,
                      std::optional<std::string> ComputerInfo::*field) {
  if (!computer || !((*computer).*field)) return Json();
  return utf8_prefix(*((*computer).*field), kBackendSentenceLimit);
}

// What the computer is doing, for a watcher (the App): "not_started" (no computer in use yet,
// or forgotten after its engine went away), "starting" (being prepared), "running", or
// "died" (it stopped unexpectedly; computer_error says how).
const char* computer_state(const std::optional<ComputerInfo>& computer,
                           const std::optional<computers::ProgressEvent>& setup,
                           const std::optional<std::string>& death) {
  if (death) return "died";
  if (computer) return "running";
  return setup ? "starting" : "not_started";
}

// {operation, computer_id, computer_attached, desktop_environment, network_access,
// desktop_url, workspace_directory, runtime_*, computer_state, computer_error, persistence,
// network_enforcement, mounts (only when there are some)}: live values when `computer` is
// known, else the configured ones.
Json status_payload(const computers::ComputerSettings& settings, const std::optional<ComputerInfo>& computer,
                    const std::optional<computers::ProgressEvent>& setup = std::nullopt,
                    const std::optional<std::string>& engine_failure = std::nullopt,
                    const std::optional<std::string>& death = std::nullopt) {
  Json payload{{"operation", "idle"},
               {"computer_id", settings.computer_id},
               {"computer_attached", computer.has_value()},
               {"desktop_environment",
                computer ? computer->desktop_environment : settings.desktop_environment},
               {"network_access", computer ? computer->network_access : settings.network_access},
               {"desktop_url", desktop_url_of(computer)},
               {"workspace_directory", settings.workspace_directory}};
  add_runtime_fields(payload, setup, engine_failure);
  payload["computer_state"] = computer_state(computer, setup, death);
  payload["computer_error"] = death ? Json(*death) : Json();
  payload["persistence"] = backend_sentence(computer, &ComputerInfo::persistence);
  payload["network_enforcement"] =
      computer && !computer->network_access
          ? backend_sentence(computer, &ComputerInfo::network_enforcement)
          : Json();
  // Host folders in the computer (docs/mounts.md), only when it has some.
  if (computer && !computer->mounts.empty()) payload["mounts"] = computer->mounts_json();
  return payload;
}

Json status_output_schema() {
  return Json{
      {"type", "object"},
      {"properties",
       {{"operation", typed("string", "Always \"idle\".")},
        {"computer_id", typed("string", "The computer's name.")},
        {"computer_attached", typed("boolean", "Whether this server has the computer in use.")},
        {"desktop_environment", typed("boolean", "Whether the computer's Xfce desktop is on.")},
        {"network_access", typed("boolean", "Whether the computer can reach the network.")},
        {"desktop_url", typed(Json::array({"string", "null"}), "URL of the live desktop, or null.")},
        {"workspace_directory", typed("string", "Where commands run and relative paths start.")},
        {"runtime_state", typed("string", "pending, working, ready or failed.")},
        {"runtime_phase", typed("string", "The container runtime's preparation step.")},
        {"runtime_message", typed("string", "What the runtime preparation is doing.")},
        {"runtime_progress", typed("number", "Preparation progress, 0 to runtime_total.")},
        {"runtime_total", typed("number", "The progress value that means done.")},
        {"downloaded_bytes", typed(Json::array({"integer", "null"}), "Bytes downloaded so far.")},
        {"download_total_bytes",
         typed(Json::array({"integer", "null"}), "Bytes to download in all.")},
        {"runtime_error", typed(Json::array({"string", "null"}), "Why preparation failed.")},
        {"computer_state", typed("string", "not_started, starting, running or died.")},
        {"computer_error", typed(Json::array({"string", "null"}), "Why the computer died, once it did.")},
        {"persistence", typed(Json::array({"string", "null"}),
                              "What survives a restart of the computer, when its engine says.")},
        {"network_enforcement",
         typed(Json::array({"string", "null"}),
               "How the network is kept off while network_access is false, when its engine says.")},
        {"mounts",
         Json{{"type", "array"},
              {"description",
               "Host folders mounted into the computer; present only when it has some."},
              {"items",
               Json{{"type", "object"},
                    {"properties",
                     {{"host_path", typed("string", "The folder on the host.")},
                      {"computer_path", typed("string", "Where it is in the computer.")},
                      {"read_only", typed("boolean", "Whether the computer can only read it.")}}}}}}},
        {"error", typed("string", "Present only when the call failed; says why.")}}}};
}

class ComputerUiTool final : public mcp::Tool {
 public:
  explicit ComputerUiTool(const CatalogContext& context)
      : settings_(context.registry->settings()),
        registry_(*context.registry),
        definition_(tool_definition(
            "computer_ui", "Open Virtual Computer",
            "Open the virtual computer: start it if needed and show its id, network and desktop "
            "state and workspace directory.",
            object_schema("computer_ui", Json::object(), {}), status_output_schema(),
            Json{{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", true},
                 {"openWorldHint", false}},
            nullptr)) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    auto running = registry_.acquire(nullptr, [call, &settings = settings_](
                                                  Expected<ComputerInfo> computer) {
      if (!computer) return call->finish(error_payload(computer.error().message));
      call->finish(mcp::ToolResult::from_payload(status_payload(settings, computer.value()), false));
    });
    cancel_with(call, running);
  }

 private:
  const computers::ComputerSettings& settings_;
  computers::ComputerRegistry& registry_;
  mcp::ToolDefinition definition_;
};

class RuntimeStatusTool final : public mcp::Tool {
 public:
  explicit RuntimeStatusTool(const CatalogContext& context)
      : settings_(context.registry->settings()),
        registry_(*context.registry),
        definition_(tool_definition("runtime_status", std::nullopt,
                               "Read genuine lazy container-runtime setup progress.",
                               object_schema("runtime_status", Json::object(), {}),
                               status_output_schema(), read_only_annotations(), app_only_meta())) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    call->finish(mcp::ToolResult::from_payload(
        status_payload(settings_, registry_.current(), registry_.setup_progress(),
                       registry_.engine_failure(), registry_.death_message()),
        false));
  }

 private:
  const computers::ComputerSettings& settings_;
  computers::ComputerRegistry& registry_;
  mcp::ToolDefinition definition_;
};

// {operation, computer_id, desktop_environment, desktop_url, network_access,
// workspace_directory}: what both switches answer (docs/desktop.md, "Desktop mode").
Json switch_payload(const computers::ComputerSettings& settings, const ComputerInfo& computer) {
  return Json{{"operation", "idle"},
              {"computer_id", computer.computer_id},
              {"desktop_environment", computer.desktop_environment},
              {"desktop_url", desktop_url_of(computer)},
              {"network_access", computer.network_access},
              {"workspace_directory", settings.workspace_directory}};
}

Json switch_output_schema(const char* changed_field, const char* changed_description) {
  Json properties = {
      {"operation", typed("string", "Always \"idle\".")},
      {"computer_id", typed("string", "The computer's name.")},
      {"desktop_environment", typed("boolean", "Whether the Xfce desktop is on.")},
      {"desktop_url", typed(Json::array({"string", "null"}), "URL of the live desktop, or null.")},
      {"network_access", typed("boolean", "Whether the computer can reach the network.")},
      {"workspace_directory", typed("string", "Where commands run.")},
      {"error", typed("string", "Present only when the call failed; says why.")}};
  properties[changed_field] = typed("boolean", changed_description);
  return Json{{"type", "object"}, {"properties", properties}};
}

// A switch of the server's computer (created first if needed): network access or the desktop.
class ComputerSwitchTool : public mcp::Tool {
 public:
  ComputerSwitchTool(const CatalogContext& context, mcp::ToolDefinition definition,
                     computers::ComputerSwitch which)
      : settings_(context.registry->settings()),
        lifecycle_(*context.lifecycle),
        definition_(std::move(definition)),
        which_(which) {
    // Switching the desktop restarts the computer in another image (built first if needed).
    if (which_ == computers::ComputerSwitch::desktop_environment) {
      definition_.task_support = mcp::TaskSupport::optional;
    }
  }

  const mcp::ToolDefinition& definition() const override { return definition_; }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const bool enabled = call->arguments().at("enabled").get<bool>();
    if (definition_.task_support != mcp::TaskSupport::forbidden) {
      call->become_task(enabled ? "Starting the Xfce desktop" : "Going back to the virtual desktop");
    }
    auto running = lifecycle_.switch_server_computer(
        which_, enabled, [call, &settings = settings_](Expected<ComputerInfo> changed) {
          if (!changed) return call->finish(error_payload(changed.error().message));
          call->finish(
              mcp::ToolResult::from_payload(switch_payload(settings, changed.value()), false));
        });
    cancel_with(call, running);
  }

 private:
  const computers::ComputerSettings& settings_;
  computers::ComputerLifecycle& lifecycle_;
  mcp::ToolDefinition definition_;
  computers::ComputerSwitch which_;
};

Json enabled_schema(const char* tool, const char* description) {
  return object_schema(tool,
                       Json{{"enabled", Json{{"description", description},
                                             {"title", "Enabled"},
                                             {"type", "boolean"}}}},
                       {"enabled"});
}

Json switch_annotations() {
  return Json{{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", true},
              {"openWorldHint", false}};
}

std::unique_ptr<mcp::Tool> make_set_network_access_tool(const CatalogContext& context) {
  return std::make_unique<ComputerSwitchTool>(
      context,
      tool_definition("set_network_access", std::nullopt,
                      "Change the running Docker computer's real network access.",
                      enabled_schema("set_network_access",
                                     "Whether the Docker computer may access the network."),
                      switch_output_schema("network_access", "The network state now in effect."),
                      switch_annotations(), app_only_meta()),
      computers::ComputerSwitch::network_access);
}

std::unique_ptr<mcp::Tool> make_set_desktop_environment_tool(const CatalogContext& context) {
  return std::make_unique<ComputerSwitchTool>(
      context,
      tool_definition("set_desktop_environment", std::nullopt,
                      "Switch the running computer between virtual and Xfce desktops.",
                      enabled_schema("set_desktop_environment",
                                     "Use a real Xfce desktop instead of the virtual desktop."),
                      switch_output_schema("desktop_environment", "The desktop state now live."),
                      switch_annotations(), app_only_meta()),
      computers::ComputerSwitch::desktop_environment);
}

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_computer_status_tools(const CatalogContext& context) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  tools.push_back(std::make_unique<ComputerUiTool>(context));
  tools.push_back(std::make_unique<RuntimeStatusTool>(context));
  tools.push_back(make_set_network_access_tool(context));
  tools.push_back(make_set_desktop_environment_tool(context));
  return tools;
}

}  // namespace vc::tools
