// tool_schema.h — the pieces of the JSON Schemas tools declare, shaped the way the original's
// pydantic schemas were (a "<tool>Arguments" title, titled properties with defaults).
#pragma once

#include <string>
#include <vector>

#include <optional>

#include "common/json.h"
#include "mcp/tool.h"

namespace vc::tools {

// {"description","title","type":"string"}
Json string_property(const char* title, const char* description);

// {"default","description","title","type":"boolean"}
Json bool_property(const char* title, const char* description, bool fallback);

// {"properties", "required"? , "title": "<tool>Arguments", "type":"object"}
Json object_schema(const std::string& tool, Json properties, std::vector<std::string> required);

// {"type","description"}: one property of an output schema.
Json typed(Json type, const char* description);

// A tool's definition for tools/list; no title, no _meta.
mcp::ToolDefinition tool_definition(const char* name, const char* description, Json input,
                                    Json output, Json annotations);
// The same with a title and _meta (null for none).
mcp::ToolDefinition tool_definition(const char* name, std::optional<std::string> title,
                                    const char* description, Json input, Json output,
                                    Json annotations, Json meta);

// A computer id argument: the computer id rule as maxLength and pattern.
Json computer_id_property(const char* description);

// {"readOnlyHint","destructiveHint","idempotentHint","openWorldHint":false}
Json tool_annotations(bool read_only, bool destructive, bool idempotent);

// Annotations of a tool that only reads.
Json read_only_annotations();

// The original's "app only" tool metadata ({"ui":{"visibility":["app"]}}): meant for the
// dashboard, hidden from the model by hosts that honour it.
Json app_only_meta();

}  // namespace vc::tools
