// process_output_tool.cpp — see process_output_tool.h.
#include "tools/process_output_tool.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <vc-backend-1/cpp/process_limits.h>
#include <vc-backend-1/cpp/requests.h>

#include "computers/process_ops.h"
#include "tools/desktop_tool_support.h"
#include "tools/process_payloads.h"
#include "tools/tool_call_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

constexpr std::int64_t kOutputReadBytes = 64 * 1024;

// What one of the App's process tools does besides reading: nothing (process_output), write
// input (process_input) or send a signal (process_signal).
enum class AppProcessAction { read, input, signal };

const char* app_tool_name(AppProcessAction action) {
  switch (action) {
    case AppProcessAction::input: return "process_input";
    case AppProcessAction::signal: return "process_signal";
    case AppProcessAction::read: break;
  }
  return "process_output";
}

const char* app_tool_description(AppProcessAction action) {
  switch (action) {
    case AppProcessAction::input:
      return "Type into a process (its stdin, or its terminal) for the in-chat view, and read "
             "the output that follows from byte offsets, without moving the read position of "
             "process_read.";
    case AppProcessAction::signal:
      return "Send a signal to a process's group for the in-chat view, and read its last "
             "output from byte offsets, without moving the read position of process_read.";
    case AppProcessAction::read: break;
  }
  return "Read a process's output from byte offsets, for the in-chat view, without moving the "
         "read position of process_read.";
}

Json output_arguments_schema(AppProcessAction action) {
  Json schema = object_schema(
      app_tool_name(action),
      Json{{"process_id", Json{{"description", "The process, e.g. \"p1\"."},
                               {"maxLength", 11},
                               {"minLength", 2},
                               {"pattern", "^p[1-9][0-9]*$"},
                               {"title", "Process Id"},
                               {"type", "string"}}},
           {"stdout_offset", integer_property("Stdout Offset",
                                              "Read stdout (a terminal's output) from this byte "
                                              "on: the stdout_offset of the last answer.",
                                              0, std::nullopt, 0)},
           {"stderr_offset", integer_property("Stderr Offset",
                                              "Read stderr from this byte on.", 0, std::nullopt, 0)},
           {"wait_ms", integer_property("Wait Ms",
                                        "Wait this long for output past the offsets when there "
                                        "is none yet.",
                                        0, sdk::kProcessMaxWaitMs, 0)}},
      {"process_id"});
  if (action == AppProcessAction::input) {
    schema["properties"]["input"] = Json{{"description", "What was typed (at most 64 KiB)."},
                                         {"maxLength", static_cast<std::int64_t>(sdk::kProcessMaxInputBytes)},
                                         {"title", "Input"},
                                         {"type", "string"}};
    schema["required"].push_back("input");
  } else if (action == AppProcessAction::signal) {
    schema["properties"]["signal"] =
        Json{{"default", "TERM"},
             {"enum", Json::array({"TERM", "KILL", "INT", "HUP", "QUIT", "USR1", "USR2", "STOP", "CONT", "WINCH"})},
             {"title", "Signal"},
             {"type", "string"}};
  }
  return schema;
}

class ProcessOutputTool final : public mcp::Tool {
 public:
  ProcessOutputTool(const CatalogContext& context, AppProcessAction action)
      : registry_(*context.registry),
        action_(action),
        definition_(tool_definition(
            app_tool_name(action), std::nullopt, app_tool_description(action),
            output_arguments_schema(action), process_output_output_schema(),
            action == AppProcessAction::read ? read_only_annotations()
                                             : tool_annotations(false, action == AppProcessAction::signal, false),
            app_only_meta())) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    Json request;
    try {
      request = read_request(call->arguments());
    } catch (const sdk::InvalidRequest& invalid) {
      return call->finish(error_payload(invalid.what()));
    }
    cancel_with(call, computers::run_process_action(
                          registry_, process_action(), std::move(request),
                          [call](Expected<Json> result) {
                            if (!result) return call->finish(error_payload(result.error().message));
                            call->finish(mcp::ToolResult::from_payload(
                                process_output_payload(result.value()), false));
                          }));
  }

 private:
  // The extension's read_process request, checked by the SDK's own parse.
  Json read_request(const Json& arguments) const {
    using sdk::request_fields::integer_in;
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    const Json doc = arguments.is_object() ? arguments : Json::object();
    Json request{{"process_id", doc.contains("process_id") ? doc["process_id"] : Json()},
                 {"wait_ms", integer_in(doc, "wait_ms", 0, sdk::kProcessMaxWaitMs, 0)},
                 {"max_bytes", kOutputReadBytes},
                 {"from", Json{{"stdout", integer_in(doc, "stdout_offset", 0, kMax, 0)},
                               {"stderr", integer_in(doc, "stderr_offset", 0, kMax, 0)}}}};
    Json probe = request;
    probe["computer_id"] = registry_.settings().computer_id;
    switch (action_) {
      case AppProcessAction::read: sdk::ProcessReadRequest::parse(probe); break;
      case AppProcessAction::input:
        request["input"] = doc.contains("input") ? doc["input"] : Json();
        probe["input"] = request["input"];
        sdk::ProcessWriteRequest::parse(probe);
        break;
      case AppProcessAction::signal:
        request.erase("wait_ms");
        request.erase("max_bytes");
        request["signal"] = doc.value("signal", std::string("TERM"));
        probe["signal"] = request["signal"];
        sdk::ProcessKillRequest::parse(probe);
        break;
    }
    return request;
  }

  computers::ProcessAction process_action() const {
    switch (action_) {
      case AppProcessAction::input: return computers::ProcessAction::write;
      case AppProcessAction::signal: return computers::ProcessAction::kill;
      case AppProcessAction::read: break;
    }
    return computers::ProcessAction::read;
  }

  computers::ComputerRegistry& registry_;
  AppProcessAction action_;
  mcp::ToolDefinition definition_;
};

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_process_app_tools(const CatalogContext& context) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  tools.push_back(std::make_unique<ProcessOutputTool>(context, AppProcessAction::read));
  tools.push_back(std::make_unique<ProcessOutputTool>(context, AppProcessAction::input));
  tools.push_back(std::make_unique<ProcessOutputTool>(context, AppProcessAction::signal));
  return tools;
}

}  // namespace vc::tools
