// process_tools.cpp — the process_* tools: arguments to an extension request, result to payload.
#include "tools/process_tools.h"

#include <string>
#include <utility>

#include <vc-backend-1/cpp/process_limits.h>
#include <vc-backend-1/cpp/requests.h>

#include "computers/process_ops.h"
#include "tools/process_payloads.h"
#include "tools/tool_call_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

using computers::ProcessAction;

constexpr const char* kStartDescription =
    "Start a process that keeps running after this call returns: a dev server, a watcher, a "
    "long build, or an interactive program (a REPL, a prompt, a full-screen terminal program "
    "with pty=true). Returns after wait_ms (default 1000) or when it ends, whichever is first, "
    "with its process_id, whether it is running, its exit_code once done, and its output so "
    "far. Then use process_read to see new output, process_write to type into it, and "
    "process_kill to end it. For a command that simply runs to completion, use "
    "terminal_execute instead. Its whole output also goes to the log files named in "
    "log_paths, which terminal_execute can grep.";
constexpr const char* kReadDescription =
    "Read what a process started with process_start printed since the last read, waiting up "
    "to wait_ms (default 1000) for some. Says whether it still runs and its exit code once it "
    "ended. Output nobody read in time is dropped from memory (stdout_dropped) but kept in its "
    "log file.";
constexpr const char* kWriteDescription =
    "Write input to a process started with process_start (its stdin, or its terminal when it "
    "runs with pty=true), then return the output that follows, as process_read does. End a "
    "line with \\n (or \\r in a terminal). In a terminal, control characters work as keys: "
    "\\u0003 is Ctrl-C, \\u0004 Ctrl-D, \\u001b Escape. close_stdin=true closes the stdin of a "
    "process without a terminal after the input (end of file).";
constexpr const char* kKillDescription =
    "End a process started with process_start, with everything it started: the signal goes to "
    "its whole process group. TERM (the default) is followed by KILL 2 s later if anything of "
    "it is left; INT is Ctrl-C.";
constexpr const char* kListDescription =
    "List every process started with process_start in this computer, running or ended, oldest "
    "first: id, command, state, start time, exit code and log files.";

Json bounded_integer_property(const char* title, const char* description, std::int64_t low,
                      std::int64_t high, std::int64_t fallback) {
  return Json{{"default", fallback}, {"description", description}, {"maximum", high},
              {"minimum", low},      {"title", title},             {"type", "integer"}};
}

Json process_id_property() {
  return Json{{"description", "The id process_start gave, e.g. \"p1\"."},
              {"maxLength", 11},
              {"minLength", 2},
              {"pattern", "^p[1-9][0-9]*$"},
              {"title", "Process Id"},
              {"type", "string"}};
}

Json wait_property(const char* description) {
  return bounded_integer_property("Wait Ms", description, 0, sdk::kProcessMaxWaitMs, 1000);
}

// What the five tools share: the call to the backend and the payload of its answer.
class ProcessTool : public mcp::Tool {
 public:
  ProcessTool(const CatalogContext& context, ProcessAction action, const char* description,
              Json properties, std::vector<std::string> required, Json output, Json hints)
      : registry_(*context.registry),
        action_(action),
        definition_(tool_definition(computers::process_action_name(action), description,
                                    object_schema(computers::process_action_name(action),
                                                  std::move(properties), std::move(required)),
                                    std::move(output), std::move(hints))) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    Json request;
    try {
      request = backend_request(call->arguments());
      check(request);
    } catch (const sdk::InvalidRequest& invalid) {
      return call->finish(error_payload(in_tool_words(invalid.what())));
    }
    const bool listing = action_ == ProcessAction::list;
    cancel_with(call, computers::run_process_action(
                          registry_, action_, std::move(request),
                          [call, listing](Expected<Json> result) {
                            if (!result) return call->finish(error_payload(result.error().message));
                            call->finish(mcp::ToolResult::from_payload(
                                listing ? process_list_payload(result.value())
                                        : process_call_payload(result.value()),
                                false));
                          }));
  }

 protected:
  // The SDK's sentence with the tool's argument names (the extension's argv is the tool's args).
  std::string in_tool_words(std::string sentence) const {
    if (action_ != ProcessAction::start) return sentence;
    for (auto at = sentence.find("argv"); at != std::string::npos; at = sentence.find("argv", at)) {
      sentence.replace(at, 4, "args");
    }
    return sentence;
  }

  // The extension's request document for these arguments (without computer_id).
  virtual Json backend_request(const Json& arguments) const { return arguments; }

 private:
  // The SDK's own parse of the request: the plugins get nothing it would refuse, and the
  // model reads the same sentence a plugin would give.
  void check(const Json& request) const {
    Json probe = request;
    probe["computer_id"] = registry_.settings().computer_id;
    switch (action_) {
      case ProcessAction::start: sdk::ProcessStartRequest::parse(probe); break;
      case ProcessAction::read: sdk::ProcessReadRequest::parse(probe); break;
      case ProcessAction::write: sdk::ProcessWriteRequest::parse(probe); break;
      case ProcessAction::kill: sdk::ProcessKillRequest::parse(probe); break;
      case ProcessAction::list: break;
    }
  }

  computers::ComputerRegistry& registry_;
  ProcessAction action_;
  mcp::ToolDefinition definition_;
};

Json start_properties() {
  Json env = Json{{"additionalProperties", Json{{"type", "string"}}},
                  {"description", "Environment variables to add, e.g. {\"PORT\": \"3000\"} (at most 64)."},
                  {"title", "Env"},
                  {"type", "object"}};
  Json args = Json{{"description", "The program and its arguments, run without a shell (instead of command)."},
                   {"items", Json{{"type", "string"}}},
                   {"maxItems", static_cast<std::int64_t>(sdk::kProcessMaxArguments)},
                   {"minItems", 1},
                   {"title", "Args"},
                   {"type", "array"}};
  return Json{
      {"command", string_property("Command", "A shell command line, e.g. \"npm run dev\" (or give args).")},
      {"args", std::move(args)},
      {"working_directory", string_property("Working Directory", "Absolute path to run in; the workspace by default.")},
      {"env", std::move(env)},
      {"pty", bool_property("Pty", "Run in a terminal: for programs that prompt, use colours or draw the screen (REPLs, editors, top). Output is then one stream.", false)},
      {"rows", bounded_integer_property("Rows", "Terminal height with pty.", sdk::kPtyMinRows, sdk::kPtyMaxRows, sdk::kPtyDefaultRows)},
      {"cols", bounded_integer_property("Cols", "Terminal width with pty.", sdk::kPtyMinCols, sdk::kPtyMaxCols, sdk::kPtyDefaultCols)},
      {"wait_ms", wait_property("How long to wait for output before returning, in milliseconds (returns earlier if the process ends).")}};
}

class ProcessStartTool final : public ProcessTool {
 public:
  explicit ProcessStartTool(const CatalogContext& context)
      : ProcessTool(context, ProcessAction::start, kStartDescription, start_properties(), {},
                    process_call_output_schema(), tool_annotations(false, false, false)) {}

 protected:
  Json backend_request(const Json& arguments) const override {
    Json request = arguments;
    if (request.contains("args")) {
      request["argv"] = request["args"];
      request.erase("args");
    }
    return request;
  }
};

class ProcessReadTool final : public ProcessTool {
 public:
  explicit ProcessReadTool(const CatalogContext& context)
      : ProcessTool(context, ProcessAction::read, kReadDescription,
                    Json{{"process_id", process_id_property()},
                         {"wait_ms", wait_property("How long to wait for new output, in milliseconds.")}},
                    {"process_id"}, process_call_output_schema(), read_only_annotations()) {}
};

class ProcessWriteTool final : public ProcessTool {
 public:
  explicit ProcessWriteTool(const CatalogContext& context)
      : ProcessTool(
            context, ProcessAction::write, kWriteDescription,
            Json{{"process_id", process_id_property()},
                 {"input", Json{{"description", "Text to write, e.g. \"y\\n\" or \"\\u0003\" (at most 64 KiB)."},
                                {"maxLength", static_cast<std::int64_t>(sdk::kProcessMaxInputBytes)},
                                {"title", "Input"},
                                {"type", "string"}}},
                 {"close_stdin", bool_property("Close Stdin", "Close its stdin after the input (end of file; not for pty).", false)},
                 {"wait_ms", wait_property("How long to wait for the output that follows, in milliseconds.")}},
            {"process_id", "input"}, process_call_output_schema(),
            tool_annotations(false, false, false)) {}
};

class ProcessKillTool final : public ProcessTool {
 public:
  explicit ProcessKillTool(const CatalogContext& context)
      : ProcessTool(context, ProcessAction::kill, kKillDescription,
                    Json{{"process_id", process_id_property()},
                         {"signal", Json{{"default", "TERM"},
                                         {"description", "The signal to send."},
                                         {"enum", Json::array({"TERM", "KILL", "INT", "HUP", "QUIT",
                                                               "USR1", "USR2", "STOP", "CONT", "WINCH"})},
                                         {"title", "Signal"},
                                         {"type", "string"}}}},
                    {"process_id"}, process_call_output_schema(),
                    tool_annotations(false, true, false)) {}
};

class ProcessListTool final : public ProcessTool {
 public:
  explicit ProcessListTool(const CatalogContext& context)
      : ProcessTool(context, ProcessAction::list, kListDescription, Json::object(), {},
                    process_list_output_schema(), read_only_annotations()) {}
};

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_process_tools(const CatalogContext& context) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  if (!computers::processes_offered(*context.registry)) return tools;
  tools.push_back(std::make_unique<ProcessStartTool>(context));
  tools.push_back(std::make_unique<ProcessReadTool>(context));
  tools.push_back(std::make_unique<ProcessWriteTool>(context));
  tools.push_back(std::make_unique<ProcessKillTool>(context));
  tools.push_back(std::make_unique<ProcessListTool>(context));
  return tools;
}

}  // namespace vc::tools
