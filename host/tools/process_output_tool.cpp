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

Json output_arguments_schema() {
  return object_schema(
      "process_output",
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
}

class ProcessOutputTool final : public mcp::Tool {
 public:
  explicit ProcessOutputTool(const CatalogContext& context)
      : registry_(*context.registry),
        definition_(tool_definition(
            "process_output", std::nullopt,
            "Read a process's output from byte offsets, for the in-chat view, without moving "
            "the read position of process_read.",
            output_arguments_schema(), process_output_output_schema(), read_only_annotations(),
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
                          registry_, computers::ProcessAction::read, std::move(request),
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
    sdk::ProcessReadRequest::parse(probe);
    return request;
  }

  computers::ComputerRegistry& registry_;
  mcp::ToolDefinition definition_;
};

}  // namespace

std::unique_ptr<mcp::Tool> make_process_output_tool(const CatalogContext& context) {
  return std::make_unique<ProcessOutputTool>(context);
}

}  // namespace vc::tools
