// terminal_execute_tool.cpp — from tools/call arguments to a command result.
#include "tools/terminal_execute_tool.h"

#include <string>
#include <utility>

#include "common/computer_defaults.h"

#include "tools/terminal_execute_arguments.h"
#include "tools/terminal_execute_definition.h"
#include "tools/terminal_execute_payload.h"
#include "tools/tool_call_support.h"

namespace vc::tools {
namespace {

// A call that names a longer timeout than this becomes a task (ToolCall::become_task): the
// default timeout, so a command as usual stays a plain request.
constexpr int64_t kTaskTimeoutSeconds = defaults::kCommandTimeoutS;

// The command as a task's status says it: its first 200 bytes.
std::string command_summary(const computers::ExecRequest& request) {
  std::string text = request.command.value_or("");
  for (const auto& arg : request.args) text += (text.empty() ? "" : " ") + arg;
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return text;
}

mcp::ToolResult error_result(const computers::ComputerSettings& settings, const std::string& message) {
  return mcp::ToolResult::from_payload(
      terminal_error_payload(settings.computer_id, settings.desktop_environment, message),
      /*is_error=*/true);
}

// Progress of the computer's acquisition (image pulls and builds) goes to the client. Held
// weakly: a call the session has dropped needs no progress.
computers::ProgressFn progress_reporter(const std::shared_ptr<mcp::ToolCall>& call) {
  std::weak_ptr<mcp::ToolCall> weak_call = call;
  return [weak_call](double progress, std::optional<double> total, const std::string& message) {
    if (auto live_call = weak_call.lock()) live_call->report_progress(progress, total, message);
  };
}

}  // namespace

TerminalExecuteTool::TerminalExecuteTool(computers::ComputerSettings settings,
                                         computers::ComputerRegistry& registry,
                                         std::string description)
    : settings_(std::make_shared<const computers::ComputerSettings>(std::move(settings))),
      registry_(registry),
      visible_terminal_(std::make_shared<VisibleTerminal>(registry)),
      definition_(terminal_execute_definition(std::move(description))) {}

const mcp::ToolDefinition& TerminalExecuteTool::definition() const { return definition_; }

void TerminalExecuteTool::call(std::shared_ptr<mcp::ToolCall> call) {
  auto request = read_terminal_execute_arguments(call->arguments(), settings_->default_timeout_s,
                                                 settings_->output_limit);
  if (!request.ok()) {
    call->finish(error_result(*settings_, request.error().message));
    return;
  }
  // A command the agent lets run longer than the default goes on as a task where the client
  // takes tasks: the client's request timeout no longer bounds it.
  if (call->arguments().contains("timeout") && request.value().timeout_s > kTaskTimeoutSeconds) {
    call->become_task("Running " + command_summary(request.value()));
  }
  // On a live desktop a person watches the command in a terminal window; what runs, and what
  // the call answers, is the same either way.
  std::optional<std::string> shown;
  if (visible_terminal_->live()) shown = visible_terminal_->show_start(request.value());
  // The completion may outlive this tool object, so it holds only what it needs.
  auto on_done = [settings = settings_, call, shown, terminal = visible_terminal_,
                  command = request.value()](Expected<computers::ExecResult> result) {
    if (!result.ok()) {
      if (shown) terminal->show_result(*shown, "", result.error().message, 1);
      call->finish(error_result(*settings, result.error().message));
      return;
    }
    Json payload = terminal_success_payload(result.value(), command);
    if (shown) {
      terminal->show_result(*shown, payload.value("stdout", ""), payload.value("stderr", ""),
                            payload.value("exit_code", int64_t{0}));
    }
    call->finish(mcp::ToolResult::from_payload(payload, /*is_error=*/false));
  };
  CancelHandle running =
      registry_.execute(std::move(request).value(), progress_reporter(call), std::move(on_done));
  cancel_with(call, running);
}

std::unique_ptr<mcp::Tool> make_terminal_execute_tool(const CatalogContext& context) {
  return std::make_unique<TerminalExecuteTool>(context.registry->settings(), *context.registry,
                                               context.terminal_execute_description);
}

}  // namespace vc::tools
