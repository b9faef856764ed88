// Tests of the terminal_execute tool end to end over a fake backend: result payloads and
// their key order, markers, error payloads, progress and cancellation.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <vc-backend-1/vc_status.h>

#include "computers/computer_registry.h"
#include "computers_fake_backend.h"
#include "tools/terminal_execute_tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {
namespace {

using backend_proxy::Operation;
using test_support::exec_result;
using test_support::fake_computer_info;
using test_support::FakeReply;

// A tools/call as the session would run it, recording what the tool did with it.
class FakeToolCall : public mcp::ToolCall {
 public:
  struct Progress {
    double progress;
    std::optional<double> total;
    std::string message;
  };

  explicit FakeToolCall(Json arguments) : arguments_(std::move(arguments)) {}

  const Json& arguments() const override { return arguments_; }
  void report_progress(double progress, std::optional<double> total,
                       const std::string& message) override {
    progress_.push_back({progress, total, message});
  }
  void log(mcp::LogLevel, const Json&) override {}
  void on_cancel(std::function<void()> handler) override { cancel_handler_ = std::move(handler); }
  bool cancelled() const override { return cancelled_; }
  uint64_t session_serial() const override { return 1; }
  bool client_supports(const std::string&) const override { return false; }
  void request_client(const std::string&, Json, std::function<void(Expected<Json>)>) override {
    ADD_FAILURE() << "terminal_execute never asks the client anything";
  }
  void finish(mcp::ToolResult result) override {
    ++finish_calls_;
    if (!result_) result_ = std::move(result);
  }

  // What notifications/cancelled does.
  void cancel_from_client() {
    cancelled_ = true;
    if (cancel_handler_) cancel_handler_();
  }

  bool finished() const { return result_.has_value(); }
  const mcp::ToolResult& result() const { return *result_; }
  const Json& payload() const { return result_->structured_content; }
  int finish_calls() const { return finish_calls_; }
  const std::vector<Progress>& progress() const { return progress_; }

 private:
  Json arguments_;
  std::vector<Progress> progress_;
  std::function<void()> cancel_handler_;
  bool cancelled_ = false;
  std::optional<mcp::ToolResult> result_;
  int finish_calls_ = 0;
};

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

const std::vector<std::string> kSuccessKeys = {
    "computer_id", "operation", "desktop_environment", "network_access",  "desktop_url",
    "stdout",      "stderr",    "exit_code",           "exec_duration_ms"};
const std::vector<std::string> kErrorKeys = {"operation", "computer_id", "desktop_environment",
                                             "error"};

class TerminalExecuteTest : public test_support::FakeBackendTest {
 protected:
  void SetUp() override {
    FakeBackendTest::SetUp();
    computers::ComputerSettings settings;
    settings.computer_id = test_support::kFakeComputerId;
    settings.desktop_environment = true;  // the configured flag, reported by error payloads
    settings.default_timeout_s = 120;
    settings.output_limit = 2048;
    registry_ = std::make_unique<computers::ComputerRegistry>(backend_, settings);
    lifecycle_ = std::make_unique<computers::ComputerLifecycle>(backend_, settings, registry_.get());
    CatalogContext context;
    context.registry = registry_.get();
    context.lifecycle = lifecycle_.get();
    context.terminal_execute_description = "Run a command.";
    catalog_ = make_tool_catalog(context);
  }

  void release_users() override {
    catalog_.clear();
    lifecycle_.reset();
    registry_.reset();
  }

  mcp::Tool& tool() { return *catalog_.at(0); }

  std::shared_ptr<FakeToolCall> call(Json arguments) {
    auto tool_call = std::make_shared<FakeToolCall>(std::move(arguments));
    tool().call(tool_call);
    return tool_call;
  }

  std::shared_ptr<FakeToolCall> call_and_run(Json arguments) {
    auto tool_call = call(std::move(arguments));
    run();
    EXPECT_TRUE(tool_call->finished());
    return tool_call;
  }

  std::unique_ptr<computers::ComputerRegistry> registry_;
  std::unique_ptr<computers::ComputerLifecycle> lifecycle_;
  std::vector<std::unique_ptr<mcp::Tool>> catalog_;
};

std::vector<std::string> names_of(const std::vector<std::unique_ptr<mcp::Tool>>& catalog) {
  std::vector<std::string> names;
  for (const auto& entry : catalog) names.push_back(entry->definition().name);
  return names;
}

TEST_F(TerminalExecuteTest, TheCatalogHasTheOriginalsToolsInItsOrderWithoutLifecycleTools) {
  EXPECT_EQ(names_of(catalog_),
            (std::vector<std::string>{"terminal_execute", "computer_ui", "runtime_status",
                                      "set_network_access", "set_desktop_environment", "list_directory", "read_file",
                                      "write_file", "edit_file"}));
  EXPECT_EQ(tool().definition().name, "terminal_execute");
  EXPECT_EQ(tool().definition().description, "Run a command.");
  // As the original: app-only metadata on the dashboard's helpers, none on the model's tools.
  const Json app_only = Json{{"ui", {{"visibility", Json::array({"app"})}}}};
  for (const auto& entry : catalog_) {
    const auto& definition = entry->definition();
    const bool helper = definition.name == "runtime_status" ||
                        definition.name == "set_network_access" ||
                        definition.name == "set_desktop_environment" ||
                        definition.name == "list_directory";
    EXPECT_EQ(definition.meta, helper ? app_only : Json()) << definition.name;
    EXPECT_FALSE(definition.input_schema["properties"].contains("computer_id")) << definition.name;
  }
  EXPECT_EQ(catalog_.at(1)->definition().title, "Open Virtual Computer");
}

TEST_F(TerminalExecuteTest, LifecycleToolsComeOnlyWithTheFlag) {
  CatalogContext context;
  context.lifecycle_tools = true;
  context.registry = registry_.get();
  context.lifecycle = lifecycle_.get();
  auto with_lifecycle = make_tool_catalog(context);
  auto names = names_of(with_lifecycle);
  ASSERT_EQ(names.size(), 14u);
  EXPECT_EQ(std::vector<std::string>(names.begin() + 9, names.end()),
            (std::vector<std::string>{"computer_list", "computer_create", "computer_restart",
                                      "computer_factory_reset", "computer_delete"}));
  for (const auto& entry : with_lifecycle) {
    const auto& definition = entry->definition();
    const bool destroys = definition.name == "computer_factory_reset" ||
                          definition.name == "computer_delete";
    if (definition.name.rfind("computer_", 0) == 0 && definition.name != "computer_ui") {
      EXPECT_EQ(definition.annotations.at("destructiveHint"), destroys) << definition.name;
    }
  }
}

TEST_F(TerminalExecuteTest, ASuccessfulCommandReportsEveryFieldInOrder) {
  backend_->script(Operation::exec,
                   FakeReply::ok(exec_result(0, "exited", 15),
                                 {{VC_STREAM_STDOUT, "hello\n"}, {VC_STREAM_STDERR, "warn\n"}}));
  auto tool_call = call_and_run(Json{{"command", "echo hello"}});
  ASSERT_FALSE(tool_call->result().is_error);
  const Json& payload = tool_call->payload();
  EXPECT_EQ(keys_of(payload), kSuccessKeys);
  EXPECT_EQ(payload["computer_id"], "test-computer");
  EXPECT_EQ(payload["operation"], "terminal_execute");
  EXPECT_EQ(payload["desktop_environment"], false) << "live state, not the configured flag";
  EXPECT_EQ(payload["network_access"], true);
  EXPECT_TRUE(payload["desktop_url"].is_null());
  EXPECT_EQ(payload["stdout"], "hello\n");
  EXPECT_EQ(payload["stderr"], "warn\n");
  EXPECT_EQ(payload["exit_code"], 0);
  EXPECT_EQ(payload["exec_duration_ms"], 15);

  const Json& content = tool_call->result().content;
  ASSERT_EQ(content.size(), 1U);
  EXPECT_EQ(content[0]["type"], "text");
  EXPECT_EQ(Json::parse(content[0]["text"].get<std::string>()), payload);
  EXPECT_EQ(tool_call->finish_calls(), 1);
}

TEST_F(TerminalExecuteTest, NonZeroExitCodesAreResultsNotErrors) {
  for (int exit_code : {0, 127, 124, 1}) {
    backend_->script(Operation::exec, FakeReply::ok(exec_result(exit_code)));
    auto tool_call = call_and_run(Json{{"command", "exit " + std::to_string(exit_code)}});
    EXPECT_FALSE(tool_call->result().is_error) << exit_code;
    EXPECT_EQ(tool_call->payload()["exit_code"], exit_code);
    EXPECT_EQ(keys_of(tool_call->payload()), kSuccessKeys);
  }
}

TEST_F(TerminalExecuteTest, TheLiveDesktopAndNetworkStateAreReported) {
  Json info = fake_computer_info();
  info["network_access"] = false;
  info["desktop_environment"] = true;
  info["desktop_url"] = "ws://127.0.0.1:49153/websockify";
  backend_->script(Operation::attach, FakeReply::ok(info));
  auto tool_call = call_and_run(Json{{"command", "true"}});
  EXPECT_EQ(tool_call->payload()["network_access"], false);
  EXPECT_EQ(tool_call->payload()["desktop_environment"], true);
  EXPECT_EQ(tool_call->payload()["desktop_url"], "ws://127.0.0.1:49153/websockify");
}

TEST_F(TerminalExecuteTest, ATimeoutReportsExit124WithItsMarkerAndNoOutput) {
  backend_->script(Operation::exec, FakeReply::ok(exec_result(137, "timed_out", 3001),
                                                  {{VC_STREAM_STDOUT, "partial"}}));
  auto tool_call = call_and_run(Json{{"command", "sleep 10"}, {"timeout", 3}});
  EXPECT_FALSE(tool_call->result().is_error);
  EXPECT_EQ(tool_call->payload()["stdout"], "");
  EXPECT_EQ(tool_call->payload()["stderr"], "[kilntainers: command timed out after 3s]");
  EXPECT_EQ(tool_call->payload()["exit_code"], 124);
  EXPECT_EQ(tool_call->payload()["exec_duration_ms"], 3001);
}

TEST_F(TerminalExecuteTest, TheDefaultTimeoutNamesTheServerSetting) {
  backend_->script(Operation::exec, FakeReply::ok(exec_result(137, "timed_out")));
  auto tool_call = call_and_run(Json{{"command", "sleep 1000"}});
  EXPECT_EQ(tool_call->payload()["stderr"], "[kilntainers: command timed out after 120s]");
  EXPECT_EQ(backend_->started(Operation::exec).at(0)->request["timeout_ms"], 120000);
}

TEST_F(TerminalExecuteTest, TooMuchOutputReportsExit1WithItsMarkerAndNoOutput) {
  backend_->script(Operation::exec, FakeReply::ok(exec_result(137, "output_limit_exceeded"),
                                                  {{VC_STREAM_STDOUT, std::string(3000, 'y')}}));
  auto tool_call = call_and_run(Json{{"command", "yes"}});
  EXPECT_FALSE(tool_call->result().is_error);
  EXPECT_EQ(tool_call->payload()["stdout"], "");
  EXPECT_EQ(tool_call->payload()["stderr"],
            "[kilntainers: output limit exceeded (2048 bytes). Command terminated. No output "
            "returned. Re-run with head, tail, or grep to manage output size.]");
  EXPECT_EQ(tool_call->payload()["exit_code"], 1);
  EXPECT_EQ(backend_->started(Operation::exec).at(0)->request["output_limit"], 2048);
}

TEST_F(TerminalExecuteTest, InvalidUtf8OutputIsReplaced) {
  backend_->script(Operation::exec,
                   FakeReply::ok(exec_result(0),
                                 {{VC_STREAM_STDOUT, "ok\xFF"}, {VC_STREAM_STDERR, "\xE2\x82"}}));
  auto tool_call = call_and_run(Json{{"command", "cat /bin/true"}});
  EXPECT_EQ(tool_call->payload()["stdout"], "ok\xEF\xBF\xBD");
  EXPECT_EQ(tool_call->payload()["stderr"], "\xEF\xBF\xBD");
}

TEST_F(TerminalExecuteTest, InvalidInputIsAnErrorPayloadAndTouchesNoBackend) {
  auto tool_call = call_and_run(Json{{"command", "ls"}, {"args", {"ls"}}});
  ASSERT_TRUE(tool_call->result().is_error);
  const Json& payload = tool_call->payload();
  EXPECT_EQ(keys_of(payload), kErrorKeys);
  EXPECT_EQ(payload["operation"], "terminal_execute");
  EXPECT_EQ(payload["computer_id"], "test-computer");
  EXPECT_EQ(payload["desktop_environment"], true);
  EXPECT_NE(payload["error"].get<std::string>().find("Cannot provide both"), std::string::npos);
  EXPECT_TRUE(backend_->all_started().empty());
}

TEST_F(TerminalExecuteTest, StdinIsPipedAndEmptyStdinIsEof) {
  call_and_run(Json{{"command", "cat"}, {"stdin", "data\n"}});
  call_and_run(Json{{"command", "cat"}, {"stdin", ""}});
  auto execs = backend_->started(Operation::exec);
  ASSERT_EQ(execs.size(), 2U);
  EXPECT_EQ(execs[0]->stdin_bytes, "data\n");
  EXPECT_EQ(execs[1]->stdin_bytes, "");
}

TEST_F(TerminalExecuteTest, AnAcquisitionFailureIsAnErrorPayloadWithTheBackendMessage) {
  backend_->script(
      Operation::validate,
      FakeReply::fail(VC_E_UNAVAILABLE, "Cannot connect to docker. Is the docker daemon running?"));
  auto tool_call = call_and_run(Json{{"command", "true"}});
  ASSERT_TRUE(tool_call->result().is_error);
  EXPECT_EQ(keys_of(tool_call->payload()), kErrorKeys);
  EXPECT_EQ(tool_call->payload()["error"],
            "Cannot connect to docker. Is the docker daemon running?");
}

TEST_F(TerminalExecuteTest, ADeadComputerIsAnError) {
  backend_->script(Operation::exec, FakeReply::fail(VC_E_COMPUTER_DIED, "container exited"));
  auto tool_call = call_and_run(Json{{"command", "kill 1"}});
  ASSERT_TRUE(tool_call->result().is_error);
  EXPECT_NE(tool_call->payload()["error"].get<std::string>().find("died"), std::string::npos);

  auto later = call(Json{{"command", "true"}});
  ASSERT_TRUE(later->finished());
  EXPECT_TRUE(later->result().is_error);
  EXPECT_EQ(later->payload()["error"], "Sandbox 0123456789ab died during command execution");
}

TEST_F(TerminalExecuteTest, AcquisitionProgressIsForwardedToTheClient) {
  backend_->script(
      Operation::ensure_image,
      FakeReply::ok(Json{{"image", "fake:latest"}, {"action", "built"}},
                    {{VC_STREAM_PROGRESS, R"({"progress":1,"total":4,"message":"Building"})"},
                     {VC_STREAM_PROGRESS, R"({"progress":2,"total":4})"}}));
  auto tool_call = call_and_run(Json{{"command", "true"}});
  ASSERT_EQ(tool_call->progress().size(), 2U);
  EXPECT_EQ(tool_call->progress()[0].progress, 1.0);
  EXPECT_EQ(tool_call->progress()[0].total, 4.0);
  EXPECT_EQ(tool_call->progress()[0].message, "Building");
  EXPECT_EQ(tool_call->progress()[1].progress, 2.0);
}

TEST_F(TerminalExecuteTest, CancellationCancelsTheRunningCommand) {
  backend_->script(Operation::exec, FakeReply::held());
  auto tool_call = call(Json{{"command", "sleep 100"}});
  run();
  auto exec = backend_->started(Operation::exec).at(0);
  EXPECT_FALSE(tool_call->finished());

  tool_call->cancel_from_client();
  EXPECT_TRUE(exec->cancel_requested);
  run();
  EXPECT_TRUE(tool_call->finished()) << "the tool still finishes; the session drops the answer";
  EXPECT_EQ(tool_call->finish_calls(), 1);
}

TEST_F(TerminalExecuteTest, CancellationWhileTheComputerStartsStopsWaiting) {
  backend_->script(Operation::create, FakeReply::held());
  auto tool_call = call(Json{{"command", "true"}});
  run();
  tool_call->cancel_from_client();
  EXPECT_TRUE(tool_call->finished());
  EXPECT_EQ(backend_->count(Operation::exec), 0U);
}

TEST_F(TerminalExecuteTest, TheInputSchemaIsTheOriginals) {
  const Json& schema = tool().definition().input_schema;
  EXPECT_EQ(keys_of(schema), (std::vector<std::string>{"properties", "title", "type"}));
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["title"], "terminal_executeArguments");
  EXPECT_FALSE(schema.contains("required"));
  EXPECT_FALSE(schema.contains("additionalProperties"));
  EXPECT_EQ(keys_of(schema["properties"]),
            (std::vector<std::string>{"command", "args", "stdin", "working_directory", "timeout"}));
  EXPECT_EQ(
      schema["properties"]["command"].dump(),
      R"({"default":null,"description":"Shell command string (mutually exclusive with args).",)"
      R"("title":"Command","type":"string"})");
  EXPECT_EQ(
      schema["properties"]["args"].dump(),
      R"({"default":null,"description":"List of arguments for direct execution (mutually )"
      R"(exclusive with command).","items":{"type":"string"},"title":"Args","type":"array"})");
  EXPECT_EQ(schema["properties"]["stdin"]["description"], "Content to pipe to stdin.");
  EXPECT_EQ(schema["properties"]["working_directory"]["title"], "Working Directory");
  EXPECT_EQ(schema["properties"]["working_directory"]["description"],
            "Working directory for the command (must be absolute).");
  EXPECT_EQ(schema["properties"]["timeout"]["type"], "integer");
  EXPECT_EQ(schema["properties"]["timeout"]["description"],
            "Timeout in seconds (defaults to server config).");
}

TEST_F(TerminalExecuteTest, TheOutputSchemaAdmitsSuccessAndErrorPayloads) {
  const Json& schema = tool().definition().output_schema;
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["required"], (Json{"computer_id", "operation"}));
  std::vector<std::string> expected = kSuccessKeys;
  expected.push_back("error");
  EXPECT_EQ(keys_of(schema["properties"]), expected);
  EXPECT_EQ(schema["properties"]["desktop_url"]["type"], (Json{"string", "null"}));
}

TEST_F(TerminalExecuteTest, TheAnnotationsSayItCanChangeAnything) {
  const mcp::ToolDefinition& definition = tool().definition();
  EXPECT_EQ(definition.annotations["readOnlyHint"], false);
  EXPECT_EQ(definition.annotations["destructiveHint"], true);
  EXPECT_EQ(definition.annotations["idempotentHint"], false);
  EXPECT_EQ(definition.annotations["openWorldHint"], true);
  EXPECT_FALSE(definition.title.has_value());
  EXPECT_TRUE(definition.meta.is_null());
}

}  // namespace
}  // namespace vc::tools

namespace vc::tools {
namespace {

class RuntimeStatusTest : public TerminalExecuteTest {
 protected:
  Json runtime_status() {
    auto status_call = std::make_shared<FakeToolCall>(Json::object());
    catalog_.at(2)->call(status_call);
    EXPECT_TRUE(status_call->finished());
    return status_call->payload();
  }
};

TEST_F(RuntimeStatusTest, ShowsTheImageBuildWhileTheComputerIsPrepared) {
  using backend_proxy::Operation;
  ASSERT_EQ(catalog_.at(2)->definition().name, "runtime_status");
  EXPECT_EQ(runtime_status()["runtime_state"], "ready");
  backend_->script(Operation::ensure_image, FakeReply::held());
  auto command = call(Json{{"command", "true"}});  // the first call acquires the computer
  run();
  std::shared_ptr<test_support::FakeOp> build;
  for (const auto& op : backend_->all_started()) {
    if (op->op == Operation::ensure_image) build = op;
  }
  ASSERT_TRUE(build) << "the acquisition did not reach ensure_image";
  EXPECT_EQ(runtime_status()["runtime_state"], "working") << "before any progress event";
  build->callbacks.on_emit(VC_STREAM_PROGRESS,
                           R"({"progress":7,"total":14,"message":"Building the desktop image: step 8/14"})");
  const Json working = runtime_status();
  EXPECT_EQ(working["runtime_state"], "working") << working.dump();
  EXPECT_EQ(working["runtime_message"], "Building the desktop image: step 8/14");
  EXPECT_DOUBLE_EQ(working["runtime_progress"].get<double>(), 2.0);  // half of 4
  EXPECT_EQ(working["computer_attached"], false);

  backend_->resolve(build, FakeReply::ok(Json{{"image", "fake:latest"}, {"action", "built"}}));
  run();
  EXPECT_TRUE(command->finished());
  const Json ready = runtime_status();
  EXPECT_EQ(ready["runtime_state"], "ready") << ready.dump();
  EXPECT_EQ(ready["runtime_progress"], 4.0);
  EXPECT_EQ(ready["computer_attached"], true);
}

}  // namespace
}  // namespace vc::tools
