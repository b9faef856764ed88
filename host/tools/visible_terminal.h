// visible_terminal.h — what a person watching a live desktop sees of terminal_execute.
//
// The command itself runs exactly as on a headless computer (the same exec, so its result
// fields, markers and exit codes are the same byte for byte); while the desktop is live, the
// desktop agent also shows it in a terminal window titled "MCP Terminal": the prompt, the
// command typed out, then its output and "[exit N]" (docs/desktop.md, "The visible
// terminal"). Showing is best effort: a desktop that cannot show it never fails the command.
//
// [loop-thread].
#pragma once

#include <cstdint>
#include <string>

#include "computers/computer_registry.h"
#include "computers/computer_types.h"

namespace vc::tools {

class VisibleTerminal {
 public:
  explicit VisibleTerminal(computers::ComputerRegistry& registry) : registry_(registry) {}

  // Whether the computer in use has a live desktop to show commands on.
  bool live() const;

  // Before the command runs: the prompt and the command line. Returns the session id to pass
  // to show_result().
  std::string show_start(const computers::ExecRequest& request);
  // After it ended: what it wrote (as the result reports it) and "[exit N]".
  void show_result(const std::string& session, const std::string& stdout_text,
                   const std::string& stderr_text, int64_t exit_code);

 private:
  void send(Json action);

  computers::ComputerRegistry& registry_;
  uint64_t next_session_ = 1;
};

// How the command reads at the prompt: a shell command as given, an argv shell-quoted.
std::string display_command_line(const computers::ExecRequest& request);

}  // namespace vc::tools
