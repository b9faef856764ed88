// app_view_link.cpp — see app_view_link.h.
#include "tools/app_view_link.h"

#include <array>
#include <string_view>
#include <utility>

#include "tools/app_bundle.h"

namespace vc::tools {
namespace {

constexpr std::array<std::string_view, 17> kShownTools = {
    "terminal_execute", "computer_ui",   "read_file",       "write_file",      "edit_file",
    "click",            "type",          "press_keys",      "scroll",          "drag",
    "mouse_move",       "mouse_button",  "launch",          "clipboard_write", "list_windows",
    "switch_window",    "move_window"};
constexpr std::array<std::string_view, 4> kShownWindowTools = {
    "maximize_window", "restore_window", "minimize_window", "close_window"};

// The wrapped tool with another definition; calls go straight through.
class LinkedTool final : public mcp::Tool {
 public:
  explicit LinkedTool(std::unique_ptr<mcp::Tool> inner)
      : inner_(std::move(inner)), definition_(inner_->definition()) {
    definition_.meta = app_view_meta();
  }

  const mcp::ToolDefinition& definition() const override { return definition_; }
  void call(std::shared_ptr<mcp::ToolCall> call) override { inner_->call(std::move(call)); }

 private:
  std::unique_ptr<mcp::Tool> inner_;
  mcp::ToolDefinition definition_;
};

}  // namespace

bool shown_in_app(const std::string& tool) {
  for (const auto name : kShownTools) {
    if (name == tool) return true;
  }
  for (const auto name : kShownWindowTools) {
    if (name == tool) return true;
  }
  return false;
}

Json app_view_meta() {
  return Json{{"ui",
               {{"visibility", Json::array({"model", "app"})}, {"resourceUri", kAppResourceUri}}},
              {"openai/outputTemplate", kAppResourceUri}};
}

std::unique_ptr<mcp::Tool> link_to_app(std::unique_ptr<mcp::Tool> tool) {
  if (!shown_in_app(tool->definition().name)) return tool;
  return std::make_unique<LinkedTool>(std::move(tool));
}

}  // namespace vc::tools
