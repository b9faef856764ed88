// process_tools_fixture.h — what the process tools' unit tests share: a tools/call that keeps
// what a tool finished with, and the server's tool catalog over a FakeBackend that offers the
// processes extension.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "computers_fake_backend.h"
#include "tools/tool_catalog.h"

namespace vc::test_support {

class ProcessCallRecorder : public mcp::ToolCall {
 public:
  explicit ProcessCallRecorder(Json arguments) : arguments_(std::move(arguments)) {}

  const Json& arguments() const override { return arguments_; }
  void report_progress(double, std::optional<double>, const std::string&) override {}
  void log(mcp::LogLevel, const Json&) override {}
  void on_cancel(std::function<void()>) override {}
  bool cancelled() const override { return false; }
  uint64_t session_serial() const override { return 1; }
  bool client_supports(const std::string&) const override { return false; }
  void request_client(const std::string&, Json, std::function<void(Expected<Json>)>) override {}
  bool become_task(const std::string&) override { return false; }
  void finish(mcp::ToolResult result) override { results.push_back(std::move(result)); }

  const Json& payload() const { return results.at(0).structured_content; }
  bool failed() const { return results.at(0).is_error; }

  std::vector<mcp::ToolResult> results;

 private:
  Json arguments_;
};

class ProcessToolsFixture : public FakeBackendTest {
 protected:
  void SetUp() override {
    FakeBackendTest::SetUp();
    backend_->set_processes(true);
    computers::ComputerSettings settings;
    settings.computer_id = kFakeComputerId;
    registry_ = std::make_unique<computers::ComputerRegistry>(backend_, settings);
    lifecycle_ = std::make_unique<computers::ComputerLifecycle>(backend_, settings, registry_.get());
  }

  void release_users() override {
    catalog_.clear();
    lifecycle_.reset();
    registry_.reset();
  }

  // The catalog the server would make; returns the tools' names in tools/list order.
  std::vector<std::string> build(bool process_tools = true) {
    tools::CatalogContext context;
    context.registry = registry_.get();
    context.lifecycle = lifecycle_.get();
    context.terminal_execute_description = "Run a command.";
    context.process_tools = process_tools;
    catalog_ = tools::make_tool_catalog(context);
    std::vector<std::string> names;
    for (const auto& tool : catalog_) names.push_back(tool->definition().name);
    return names;
  }

  const mcp::Tool* tool(const std::string& name) const {
    for (const auto& entry : catalog_) {
      if (entry->definition().name == name) return entry.get();
    }
    return nullptr;
  }

  // Calls the tool `name` and runs the loop until its answer is in.
  std::shared_ptr<ProcessCallRecorder> call(const std::string& name, Json arguments) {
    auto recording = std::make_shared<ProcessCallRecorder>(std::move(arguments));
    for (const auto& entry : catalog_) {
      if (entry->definition().name == name) entry->call(recording);
    }
    run();
    return recording;
  }

  std::unique_ptr<computers::ComputerRegistry> registry_;
  std::unique_ptr<computers::ComputerLifecycle> lifecycle_;
  std::vector<std::unique_ptr<mcp::Tool>> catalog_;
};

}  // namespace vc::test_support
