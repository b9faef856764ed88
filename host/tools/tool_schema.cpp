// tool_schema.cpp — see tool_schema.h.
#include "tools/tool_schema.h"

#include <utility>

namespace vc::tools {

Json string_property(const char* title, const char* description) {
  return Json{{"description", description}, {"title", title}, {"type", "string"}};
}

Json bool_property(const char* title, const char* description, bool fallback) {
  return Json{{"default", fallback}, {"description", description}, {"title", title}, {"type", "boolean"}};
}

Json object_schema(const std::string& tool, Json properties, std::vector<std::string> required) {
  Json schema{{"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = required;
  schema["title"] = tool + "Arguments";
  schema["type"] = "object";
  return schema;
}

Json typed(Json type, const char* description) {
  return Json{{"type", std::move(type)}, {"description", description}};
}

mcp::ToolDefinition tool_definition(const char* name, const char* description, Json input,
                                    Json output, Json annotations) {
  return tool_definition(name, std::nullopt, description, std::move(input), std::move(output),
                         std::move(annotations), nullptr);
}

mcp::ToolDefinition tool_definition(const char* name, std::optional<std::string> title,
                                    const char* description, Json input, Json output,
                                    Json annotations, Json meta) {
  mcp::ToolDefinition tool;
  tool.name = name;
  tool.title = std::move(title);
  tool.description = description;
  tool.input_schema = std::move(input);
  tool.output_schema = std::move(output);
  tool.annotations = std::move(annotations);
  tool.meta = std::move(meta);
  return tool;
}

Json computer_id_property(const char* description) {
  return Json{{"description", description},
              {"maxLength", 63},
              {"pattern", "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"},
              {"title", "Computer Id"},
              {"type", "string"}};
}

Json tool_annotations(bool read_only, bool destructive, bool idempotent) {
  return Json{{"readOnlyHint", read_only}, {"destructiveHint", destructive},
              {"idempotentHint", idempotent}, {"openWorldHint", false}};
}

Json read_only_annotations() {
  return Json{{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true},
              {"openWorldHint", false}};
}

Json app_only_meta() { return Json{{"ui", {{"visibility", Json::array({"app"})}}}}; }

}  // namespace vc::tools
