// terminal_execute_definition.cpp — terminal_execute's input and output schemas and annotations.
#include "tools/terminal_execute_definition.h"

#include <utility>

namespace vc::tools {
namespace {

// One optional parameter as pydantic describes it: keys sorted, "default": null.
Json optional_parameter(const char* title, const char* description, const char* type,
                        const Json& items = nullptr) {
  Json property = Json::object();
  property["default"] = nullptr;
  property["description"] = description;
  if (!items.is_null()) property["items"] = items;
  property["title"] = title;
  property["type"] = type;
  return property;
}

Json input_schema() {
  Json properties = Json::object();
  properties["command"] = optional_parameter(
      "Command", "Shell command string (mutually exclusive with args).", "string");
  properties["args"] = optional_parameter(
      "Args", "List of arguments for direct execution (mutually exclusive with command).", "array",
      Json{{"type", "string"}});
  properties["stdin"] = optional_parameter("Stdin", "Content to pipe to stdin.", "string");
  properties["working_directory"] = optional_parameter(
      "Working Directory", "Working directory for the command (must be absolute).", "string");
  properties["timeout"] =
      optional_parameter("Timeout", "Timeout in seconds (defaults to server config).", "integer");
  Json schema = Json::object();
  schema["properties"] = std::move(properties);
  schema["title"] = "terminal_executeArguments";
  schema["type"] = "object";
  return schema;
}

Json typed(Json type, const char* description) {
  return Json{{"type", std::move(type)}, {"description", description}};
}

Json output_schema() {
  Json properties = Json::object();
  properties["computer_id"] = typed("string", "The computer the command ran on.");
  properties["operation"] = typed("string", "Always \"terminal_execute\".");
  properties["desktop_environment"] =
      typed("boolean", "Whether the computer's Xfce desktop is running.");
  properties["network_access"] = typed("boolean", "Whether the computer can reach the network.");
  properties["desktop_url"] = typed(Json::array({"string", "null"}),
                                    "URL of the live desktop view (noVNC), or null when none runs.");
  properties["stdout"] = typed("string", "Standard output, decoded as UTF-8.");
  properties["stderr"] = typed("string", "Standard error, decoded as UTF-8.");
  properties["exit_code"] =
      typed("integer",
            "The command's exit code: 124 after a timeout, 1 when the output limit "
            "was exceeded.");
  properties["exec_duration_ms"] = typed("integer", "How long the command ran, in milliseconds.");
  properties["error"] = typed("string", "Present only when the command could not run; says why.");
  Json schema = Json::object();
  schema["type"] = "object";
  schema["properties"] = std::move(properties);
  schema["required"] = Json::array({"computer_id", "operation"});
  return schema;
}

Json annotations() {
  Json hints = Json::object();
  hints["title"] = "Run a terminal command";
  hints["readOnlyHint"] = false;
  hints["destructiveHint"] = true;
  hints["idempotentHint"] = false;
  hints["openWorldHint"] = true;
  return hints;
}

}  // namespace

mcp::ToolDefinition terminal_execute_definition(std::string description) {
  mcp::ToolDefinition definition;
  definition.name = "terminal_execute";
  definition.description = std::move(description);
  definition.input_schema = input_schema();
  definition.output_schema = output_schema();
  definition.annotations = annotations();
  // A command allowed to run long answers with a task where the client takes tasks.
  definition.task_support = mcp::TaskSupport::optional;
  return definition;
}

}  // namespace vc::tools
