// mcp_session_doubles.h — test doubles for the MCP session's tests: a tool that holds its
// calls (the test finishes them) and a tool set whose visibility the test switches.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mcp/catalog_changes.h"
#include "mcp/tool.h"

namespace vc::mcp::doubles {

// Keeps every call it gets, so a test decides when (and whether) it finishes.
class HeldCallsTool : public Tool {
 public:
  explicit HeldCallsTool(std::string name, Json schema = Json{{"type", "object"}}) {
    definition_.name = std::move(name);
    definition_.description = "holds its calls";
    definition_.input_schema = std::move(schema);
  }
  const ToolDefinition& definition() const override { return definition_; }
  void call(std::shared_ptr<ToolCall> call) override { calls.push_back(std::move(call)); }
  void set_task_support(TaskSupport support) { definition_.task_support = support; }

  std::vector<std::shared_ptr<ToolCall>> calls;

 private:
  ToolDefinition definition_;
};

// Tools named in `hidden` are out of the set; change() tells every subscriber.
class SwitchableToolSet : public CatalogChanges {
 public:
  bool tool_visible(const std::string& name) const override { return hidden.count(name) == 0; }
  Subscription subscribe(std::function<void()> listener) override {
    auto shared = std::make_shared<std::function<void()>>(std::move(listener));
    listeners.push_back(shared);
    return shared;
  }
  void change() {
    for (auto& weak : listeners) {
      if (auto listener = weak.lock()) (*listener)();
    }
  }

  std::set<std::string> hidden;
  std::vector<std::weak_ptr<std::function<void()>>> listeners;
};

}  // namespace vc::mcp::doubles
