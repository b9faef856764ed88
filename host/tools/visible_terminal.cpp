// visible_terminal.cpp — see visible_terminal.h.
#include "tools/visible_terminal.h"

#include <spdlog/spdlog.h>

#include "computers/desktop_action.h"
#include "tools/desktop_tool_set.h"

namespace vc::tools {
namespace {

// Shown output is capped: the window is for watching, the result carries everything.
constexpr size_t kShownOutputLimit = 64 * 1024;

bool needs_quoting(const std::string& word) {
  if (word.empty()) return true;
  for (char c : word) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.' || c == '/' || c == ':' || c == '=' ||
                       c == ',' || c == '+' || c == '@' || c == '%';
    if (!plain) return true;
  }
  return false;
}

std::string quoted(const std::string& word) {
  if (!needs_quoting(word)) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\"'\"'";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string display_command_line(const computers::ExecRequest& request) {
  if (request.command) return *request.command;
  std::string line;
  for (const std::string& arg : request.args) {
    if (!line.empty()) line += ' ';
    line += quoted(arg);
  }
  return line;
}

bool VisibleTerminal::live() const {
  auto computer = registry_.current();
  return computer && desktop_live(*computer);
}

std::string VisibleTerminal::show_start(const computers::ExecRequest& request) {
  const std::string session = "command-" + std::to_string(next_session_++);
  const std::string directory = request.working_directory.value_or(
      registry_.settings().workspace_directory);
  send(Json{{"action", "terminal_show"},
            {"phase", "start"},
            {"session", session},
            {"prompt", "root@" + registry_.settings().computer_id + ":" + directory + "# "},
            {"command", display_command_line(request)}});
  return session;
}

void VisibleTerminal::show_result(const std::string& session, const std::string& stdout_text,
                                  const std::string& stderr_text, int64_t exit_code) {
  std::string output = stdout_text;
  if (!stderr_text.empty()) {
    if (!output.empty() && output.back() != '\n') output += '\n';
    output += stderr_text;
  }
  if (output.size() > kShownOutputLimit) {
    output.resize(kShownOutputLimit);
    output += "\n[... the rest is in the tool result ...]\n";
  }
  if (!output.empty()) {
    send(Json{{"action", "terminal_show"}, {"phase", "output"}, {"session", session},
              {"data", output}});
  }
  send(Json{{"action", "terminal_show"}, {"phase", "end"}, {"session", session},
            {"exit_code", exit_code}});
}

void VisibleTerminal::send(Json action) {
  computers::run_desktop_action(registry_, std::move(action), [](Expected<Json> result) {
    if (!result) spdlog::debug("the visible terminal could not show a command: {}",
                               result.error().message);
  });
}

}  // namespace vc::tools
