// agent.cpp — request validation common to every action, and the action table.
#include "agent.h"

#include <cstdio>
#include <cstdlib>

#include "vc_agent_common/clock.h"
#include "dialog_commit.h"
#include "input_actions.h"
#include "launch.h"
#include "vc_agent_common/log_line.h"
#include "screenshot.h"

namespace vc::desktop_agent {

using agent_common::log_line;
using agent_common::monotonic_us;

Agent::Agent()
    : keyboard_(x_),
      clipboard_(x_),
      damage_(x_),
      windows_(x_),
      accessibility_(x_),
      terminal_(x_, windows_),
      files_(x_, windows_, keyboard_, damage_) {}

namespace {

// The bounds of settling (docs/desktop-agent.md, "Settling"): an application that draws
// nothing within kFirstChangeMs took the input without a visible answer; one that draws is
// settled once nothing more was drawn for kQuietMs; nothing waits longer than kSettleLimitMs.
constexpr int kFirstChangeMs = 400;
constexpr int kQuietMs = 120;
// Typed text waits longer: a text field may go on working on what was typed without drawing
// (a file chooser completing a typed path), and a Return sent meanwhile is swallowed.
constexpr int kTypedQuietMs = 350;
constexpr int kSettleLimitMs = 3000;
// Return, Enter or Escape in a dialog also waits this long at most for the dialog to go
// (dialog_commit.h): a save dialog closes once the file is written.
constexpr int kDialogAnswerMs = 1500;

bool is_input_action(const std::string& action) {
  return action == "click" || action == "mouse_button" || action == "drag" ||
         action == "scroll" || action == "press_keys" || action == "type" ||
         action == "pointer_move" || action == "element_action";
}

}  // namespace

json Agent::dispatch(const std::string& action, const Request& request) {
  if (!is_input_action(action) || !request.boolean_or("settle", false)) {
    return dispatch_action(action, request);
  }
  const Window dialog = answers_dialog(action, request) ? dialog_in_front(x_, windows_) : None;
  damage_.arm();
  json result = dispatch_action(action, request);
  Settled settled =
      damage_.settle(kFirstChangeMs, action == "type" ? kTypedQuietMs : kQuietMs, kSettleLimitMs);
  if (dialog != None) {
    const std::int64_t asked = agent_common::monotonic_ms();
    if (wait_for_dialog_answer(windows_, dialog, kDialogAnswerMs)) {
      // The dialog went (or another came): what it uncovered is drawn now.
      const Settled after = damage_.settle(kFirstChangeMs, kQuietMs, kSettleLimitMs);
      settled.effect = true;
      settled.settled = after.settled;
    }
    settled.waited_ms += agent_common::monotonic_ms() - asked;
  }
  result["effect"] = settled.effect;
  result["settled"] = settled.settled;
  result["settle_ms"] = settled.waited_ms;
  return result;
}

json Agent::dispatch_action(const std::string& action, const Request& request) {
  if (action == "screen") return screen_action(x_, request);
  if (action == "screenshot") return screenshot_action(x_, request);
  if (action == "cursor_position") return cursor_position_action(x_, request);
  if (action == "pointer_move") return pointer_move_action(x_, request);
  if (action == "click") return click_action(x_, keyboard_, request);
  if (action == "mouse_button") return mouse_button_action(x_, request);
  if (action == "drag") return drag_action(x_, keyboard_, request);
  if (action == "scroll") return scroll_action(x_, keyboard_, request);
  if (action == "press_keys") return press_keys_action(x_, keyboard_, request);
  if (action == "type") return type_action(x_, keyboard_, request);
  if (action == "wait_for_screen") return damage_.wait_action(request);
  if (action == "pause") return pause_action(x_, request);
  if (action == "clipboard_read") return clipboard_.read_action(request);
  if (action == "clipboard_write") return clipboard_.write_action(request);
  if (action == "list_windows") return windows_.list_action(request);
  if (action == "window_action") return windows_.action(request);
  if (action == "accessibility_snapshot") return accessibility_.snapshot_action(request);
  if (action == "element_bounds") return accessibility_.element_bounds_action(request);
  if (action == "element_action") return accessibility_.element_action(request);
  if (action == "launch") return launch_action(x_, windows_, request);
  if (action == "terminal_show") return terminal_.action(request);
  if (action == "show_file") return files_.action(request);
  throw_invalid("Unknown desktop action '" + action + "'.");
}

json Agent::handle_line(const std::string& line) {
  json body = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return error_reply(nullptr, ErrorCode::kInvalidArgument,
                       "The request line is not valid JSON (UTF-8, one object per line).");
  }
  if (!body.is_object()) {
    return error_reply(nullptr, ErrorCode::kInvalidArgument, "A request must be a JSON object.");
  }
  json id = nullptr;
  auto id_field = body.find("id");
  if (id_field != body.end() && (id_field->is_number() || id_field->is_string())) id = *id_field;
  if (id.is_null()) {
    return error_reply(nullptr, ErrorCode::kInvalidArgument,
                       "A request needs an 'id' (a number or a string).");
  }
  auto action_field = body.find("action");
  if (action_field == body.end() || !action_field->is_string()) {
    return error_reply(id, ErrorCode::kInvalidArgument, "A request needs an 'action' (a string).");
  }
  const std::string action = action_field->get<std::string>();
  const std::int64_t started = monotonic_us();
  json reply;
  try {
    reply = ok_reply(id, dispatch(action, Request(body)));
  } catch (const AgentError& error) {
    reply = error_reply(id, error.code(), error.what());
  } catch (const std::exception& error) {
    reply = error_reply(id, ErrorCode::kFailed,
                        std::string("The action '") + action + "' failed: " + error.what());
  } catch (...) {
    reply = error_reply(id, ErrorCode::kFailed, "The action '" + action + "' failed.");
  }
  x_.close_if_dead();
  // For measuring: the time each action takes inside the agent, on stderr.
  static const bool timing = getenv("VC_AGENT_TIMING") != nullptr;
  if (timing) {
    char text[64];
    snprintf(text, sizeof text, " took %.1f ms",
             static_cast<double>(monotonic_us() - started) / 1000.0);
    log_line(action + text);
  }
  return reply;
}

}  // namespace vc::desktop_agent
