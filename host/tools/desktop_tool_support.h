// desktop_tool_support.h — the pieces every desktop tool is made of: a Tool whose call is a
// DesktopCall handler, and the schema fragments they share.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "mcp/tool.h"
#include "tools/desktop_call.h"

namespace vc::tools {

using DesktopHandler = std::function<void(const std::shared_ptr<DesktopCall>& call)>;

class DesktopTool final : public mcp::Tool {
 public:
  DesktopTool(DesktopToolsContext context, mcp::ToolDefinition definition, DesktopHandler handler)
      : context_(context), definition_(std::move(definition)), handler_(std::move(handler)) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    auto desktop_call = std::make_shared<DesktopCall>(context_, std::move(call));
    desktop_call->begin([desktop_call, handler = handler_] { handler(desktop_call); });
  }

 private:
  DesktopToolsContext context_;
  mcp::ToolDefinition definition_;
  DesktopHandler handler_;
};

// Appends a DesktopTool with `context`, `definition` and `handler` to `tools`. The tool files
// bind the first two (std::bind_front) and list their tools through the result.
void add_desktop_tool(const DesktopToolsContext& context,
                      std::vector<std::unique_ptr<mcp::Tool>>& tools,
                      mcp::ToolDefinition definition, DesktopHandler handler);

// The longest text each desktop argument takes, in characters (code points). Past them the
// call is refused at once with a schema error that quotes at most a short excerpt: an agent's
// runaway argument must not type for minutes or echo megabytes back (docs/desktop.md, "Bounds").
inline constexpr int64_t kMaxTypedCharacters = 10000;         // type.text
inline constexpr int64_t kMaxKeysCharacters = 1000;           // press_keys.keys
inline constexpr int64_t kMaxClipboardCharacters = 1 << 20;   // clipboard_write.text
inline constexpr int64_t kMaxLaunchTargetCharacters = 4096;   // launch.target
inline constexpr int64_t kMaxSelectorCharacters = 512;        // window selectors, element refs

// {"type":"string","title","description","maxLength"}: a text argument with its bound.
Json bounded_string_property(const char* title, const std::string& description,
                             int64_t max_characters);
// {"type":"integer","title","description"} with optional bounds and default.
Json integer_property(const char* title, const char* description,
                      std::optional<int64_t> minimum = std::nullopt,
                      std::optional<int64_t> maximum = std::nullopt,
                      std::optional<int64_t> fallback = std::nullopt);
// {"type":"string","enum":[...]} with a default.
Json choice_property(const char* title, const char* description, std::vector<std::string> choices,
                     const char* fallback);
// The modifiers array of click, scroll and drag.
Json modifiers_property();
// `properties` of an input tool with `settle` and `observe` added (desktop_call.h,
// desktop_observation.h).
Json input_properties(Json properties);
// `properties` of another acting tool (launch, window actions) with `observe` added.
Json observing_properties(Json properties);
// `base` with the members of `more` added (later ones win).
Json merged(Json base, const Json& more);
// The shared output schema: {computer_id, desktop_url, error} plus `properties`.
Json desktop_output_schema(Json properties);
// Annotations: a tool that changes what is on the screen, or one that only looks.
Json acting_annotations();
Json looking_annotations();

// The length of UTF-8 text in code points (Python's len()), as the bounds count it.
int64_t code_points(const std::string& text);

// An optional integer argument.
std::optional<int64_t> integer_argument(const Json& arguments, const char* key);
// The "modifiers" argument as the agent takes it (an array of names), or an empty array.
Json modifiers_argument(const Json& arguments);

// The target of a pointer tool: an accessibility element (its centre) or x and y in the
// screenshot's space (screen_space.h). `done` gets screen pixels; a failure ends the call.
// `required`: without element, x and y the call fails with the original's message; otherwise
// `done` gets nullopt.
void resolve_pointer_target(const std::shared_ptr<DesktopCall>& call, bool required,
                            std::function<void(std::optional<ScreenPoint>)> done);

}  // namespace vc::tools
