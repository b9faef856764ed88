// tool.cpp — the JSON forms of tool definitions and results (MCP 2025-11-25 Tool and
// CallToolResult).
#include "mcp/tool.h"

#include "mcp/protocol_era.h"
#include "mcp/python_style_json.h"

namespace vc::mcp {

Json ToolDefinition::to_json() const {
  Json tool = Json::object();
  tool["name"] = name;
  if (title) tool["title"] = *title;
  tool["description"] = description;
  tool["inputSchema"] = input_schema;
  if (!output_schema.is_null()) tool["outputSchema"] = output_schema;
  if (!annotations.is_null()) tool["annotations"] = annotations;
  if (!meta.is_null()) tool["_meta"] = meta;
  return tool;
}

ToolResult ToolResult::from_payload(const Json& payload, bool is_error) {
  ToolResult result;
  result.content = Json::array({Json{{"type", "text"}, {"text", dump_python_style(payload)}}});
  result.structured_content = payload;
  result.is_error = is_error;
  return result;
}

ToolResult ToolResult::error_text(const std::string& text) {
  ToolResult result;
  result.content = Json::array({Json{{"type", "text"}, {"text", text}}});
  result.is_error = true;
  return result;
}

ToolResult ToolResult::input_required(Json input_requests, Json state) {
  ToolResult result;
  result.input_requests = std::move(input_requests);
  result.state = std::move(state);
  return result;
}

ToolResult ToolResult::missing_capability(Json required_capabilities) {
  ToolResult result;
  result.required_capabilities = std::move(required_capabilities);
  return result;
}

ToolResult ToolResult::failed(int code, const std::string& message, Json data) {
  ToolResult result;
  result.protocol_error = Json{{"code", code}, {"message", message}};
  if (!data.is_null()) result.protocol_error["data"] = std::move(data);
  return result;
}

Json ToolResult::error_object(const std::string& tool) const {
  if (!protocol_error.is_null()) return protocol_error;
  if (required_capabilities.is_null()) return nullptr;
  return Json{{"code", kMissingClientCapability},
              {"message", "Missing required client capability: " + tool + " needs " +
                              required_capabilities.dump()},
              {"data", {{"requiredCapabilities", required_capabilities}}}};
}

Json ToolResult::to_json() const {
  if (asks_for_input()) {
    return Json{{"resultType", "input_required"}, {"inputRequests", input_requests}};
  }
  Json out = Json::object();
  out["content"] = content;
  if (!structured_content.is_null()) out["structuredContent"] = structured_content;
  out["isError"] = is_error;
  return out;
}

}  // namespace vc::mcp
