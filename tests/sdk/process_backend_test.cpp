// process_backend_test.cpp — drives the process backend (sdk/examples/process_backend, plugin
// name "process") through the C ABI with a fake host: descriptor, every operation, exec
// streaming, limits, cancellation, ordering, exactly-once completion and destroy.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "fake_host.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const vc_test::PluginModule& plugin() {
  static vc_test::PluginModule module(VC_PROCESS_PLUGIN_PATH);
  return module;
}

// The fields a schema requires, following one $ref to computer_info.json.
std::vector<std::string> required_fields(const std::string& schema_file) {
  std::ifstream in(fs::path(VC_SCHEMA_DIR) / schema_file);
  json schema = json::parse(in);
  if (schema.contains("$ref")) return required_fields(schema["$ref"].get<std::string>());
  return schema.value("required", std::vector<std::string>{});
}

void expect_matches_schema(const json& doc, const std::string& schema_file) {
  ASSERT_TRUE(doc.is_object()) << doc;
  for (const auto& field : required_fields(schema_file)) {
    EXPECT_TRUE(doc.contains(field)) << schema_file << " requires " << field << ": " << doc;
  }
}

class ProcessBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/vc-process-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    host_ = std::make_unique<vc_test::FakeHost>((dir_ / "state").string());
    backend_ = make_backend(json{{"options", {{"scratch-root", (dir_ / "scratch").string()}}}});
    ASSERT_NE(backend_, nullptr);
  }

  void TearDown() override {
    if (backend_ != nullptr) backend_->ops->destroy(backend_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  vc_backend* make_backend(const json& config) {
    char errbuf[256] = "";
    vc_backend* backend = nullptr;
    std::string text = config.dump();
    vc_status status = plugin().descriptor()->create_backend(host_->services(), text.data(),
                                                             text.size(), &backend, errbuf,
                                                             sizeof errbuf);
    last_error_ = errbuf;
    return status == VC_OK ? backend : nullptr;
  }

  // Starts an op and waits for its completion; fails the test on a synchronous rejection.
  std::unique_ptr<vc_test::FakeOp> run(vc_async_op_fn fn, const json& request) {
    auto op = start(fn, request);
    EXPECT_TRUE(op->wait()) << "no completion for " << request;
    return op;
  }

  std::unique_ptr<vc_test::FakeOp> start(vc_async_op_fn fn, const json& request) {
    auto op = std::make_unique<vc_test::FakeOp>();
    std::string text = request.dump();
    EXPECT_EQ(fn(backend_, text.data(), text.size(), op->get()), VC_OK) << request;
    return op;
  }

  std::unique_ptr<vc_test::FakeOp> start_exec(const json& request, const std::string& stdin_bytes = {},
                                              uint64_t truncate_after = 0) {
    auto op = std::make_unique<vc_test::FakeOp>();
    op->truncate_after = truncate_after;
    std::string text = request.dump();
    EXPECT_EQ(backend_->ops->exec(backend_, text.data(), text.size(),
                                  reinterpret_cast<const uint8_t*>(stdin_bytes.data()),
                                  stdin_bytes.size(), op->get()),
              VC_OK)
        << request;
    return op;
  }

  std::unique_ptr<vc_test::FakeOp> exec(const json& request, const std::string& stdin_bytes = {}) {
    auto op = start_exec(request, stdin_bytes);
    EXPECT_TRUE(op->wait()) << "no completion for " << request;
    return op;
  }

  static json shell(const std::string& command, const std::string& computer = "box",
                    int64_t timeout_ms = 10000, uint64_t output_limit = 0) {
    return {{"computer_id", computer}, {"command", command}, {"shell", "/bin/sh"},
            {"timeout_ms", timeout_ms}, {"output_limit", output_limit}};
  }

  void create(const std::string& id) {
    auto op = run(backend_->ops->create, {{"computer_id", id}, {"temporary", false},
                                          {"network_access", true}, {"desktop_environment", false},
                                          {"workspace_directory", "/workspace"},
                                          {"shell", "/bin/sh"}});
    ASSERT_EQ(op->status(), VC_OK) << op->message();
  }

  // A malformed request is accepted and completed at once with VC_E_INVALID_ARGUMENT and a
  // message (a rejected op would carry none), exactly once.
  void expect_refused(vc_async_op_fn fn, const json& request, const std::string& operation) {
    vc_test::FakeOp op;
    std::string text = request.dump();
    EXPECT_EQ(fn(backend_, text.data(), text.size(), op.get()), VC_OK) << request;
    ASSERT_TRUE(op.wait()) << request;
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(op.completions(), 1) << request;
    EXPECT_EQ(op.status(), VC_E_INVALID_ARGUMENT) << request;
    EXPECT_EQ(op.message().rfind("Invalid " + operation + " request: ", 0), 0u) << op.message();
  }

  fs::path scratch() const { return dir_ / "scratch"; }

  fs::path dir_;
  std::unique_ptr<vc_test::FakeHost> host_;
  vc_backend* backend_ = nullptr;
  std::string last_error_;
};

// --- descriptor ----------------------------------------------------------------------------------

TEST(ProcessDescriptor, IdentifiesItselfAsAnExampleThatIsNotASandbox) {
  const vc_plugin_descriptor* d = plugin().descriptor();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->struct_size, sizeof(vc_plugin_descriptor));
  EXPECT_EQ(d->magic, VC_DESCRIPTOR_MAGIC);
  EXPECT_EQ(d->abi_major, VC_ABI_MAJOR);
  EXPECT_EQ(d->min_host_abi_minor, 0u);
  EXPECT_STREQ(d->id, "org.mcp-virtual-computer.process");
  EXPECT_STREQ(d->name, "process");
  EXPECT_NE(std::string(d->description).find("NOT a sandbox"), std::string::npos);
  EXPECT_EQ(d->capabilities, VC_CAP_PERSISTENT | VC_CAP_RESTART | VC_CAP_FACTORY_RESET |
                                 VC_CAP_EXEC_STDIN | VC_CAP_WAIT_FOR_DEATH |
                                 VC_CAP_KILLS_PROCESS_TREE);
  EXPECT_EQ(d->capabilities & VC_CAP_ISOLATED, 0u);
  ASSERT_NE(d->options, nullptr);
  ASSERT_NE(d->options[0], nullptr);
  EXPECT_STREQ(d->options[0]->name, "scratch-root");
  EXPECT_EQ(d->options[0]->type, VC_OPTION_STRING);
  EXPECT_EQ(d->options[0]->default_value, nullptr);
  EXPECT_STREQ(d->options[0]->env_var, "VC_PROCESS_SCRATCH_ROOT");
  EXPECT_NE(std::string(d->options[0]->help).find("NOT a sandbox"), std::string::npos);
  EXPECT_EQ(d->options[1], nullptr);
}

TEST(ProcessDescriptor, RefusesAHostOfAnotherMajor) {
  EXPECT_EQ(plugin().descriptor(2), nullptr);
}

TEST_F(ProcessBackendTest, RejectsABadConfigWithAMessage) {
  EXPECT_EQ(make_backend(json{{"options", {{"scratch-root", 42}}}}), nullptr);
  EXPECT_NE(last_error_.find("scratch-root"), std::string::npos) << last_error_;
}

TEST_F(ProcessBackendTest, DefaultsTheScratchRootToTheStateDirectory) {
  vc_backend* other = make_backend(json{{"options", {{"scratch-root", nullptr}}}});
  ASSERT_NE(other, nullptr);
  auto op = std::make_unique<vc_test::FakeOp>();
  std::string request = R"({"computer_id":"x","temporary":false,"network_access":true,)"
                        R"("desktop_environment":false,"workspace_directory":"/w","shell":"/bin/sh"})";
  ASSERT_EQ(other->ops->create(other, request.data(), request.size(), op->get()), VC_OK);
  ASSERT_TRUE(op->wait());
  EXPECT_EQ(op->status(), VC_OK) << op->message();
  EXPECT_TRUE(fs::is_directory(dir_ / "state" / "computers" / "x" / "workspace"));
  other->ops->destroy(other);
}

// --- lifecycle operations ------------------------------------------------------------------------

TEST_F(ProcessBackendTest, ValidateCreatesTheScratchRoot) {
  auto op = run(backend_->ops->validate, json::object());
  ASSERT_EQ(op->status(), VC_OK) << op->message();
  json result = json::parse(op->json());
  expect_matches_schema(result, "validate.result.json");
  EXPECT_EQ(result["engine"], "host-process");
  EXPECT_TRUE(fs::is_directory(scratch()));
}

TEST_F(ProcessBackendTest, EnsureImageReportsProgressThenPresent) {
  auto op = run(backend_->ops->ensure_image, json::object());
  ASSERT_EQ(op->status(), VC_OK);
  ASSERT_EQ(op->progress().size(), 1u);
  json event = json::parse(op->progress()[0]);
  expect_matches_schema(event, "progress_event.json");
  json result = json::parse(op->json());
  expect_matches_schema(result, "ensure_image.result.json");
  EXPECT_EQ(result["action"], "present");
}

TEST_F(ProcessBackendTest, CreateAdoptsOnlyWhenAskedAndReportsEffectiveSettings) {
  json request = {{"computer_id", "box"}, {"temporary", true}, {"network_access", false},
                  {"desktop_environment", true}, {"workspace_directory", "/workspace"},
                  {"shell", "/bin/sh"}};
  auto first = run(backend_->ops->create, request);
  ASSERT_EQ(first->status(), VC_OK) << first->message();
  json info = json::parse(first->json());
  expect_matches_schema(info, "create.result.json");
  EXPECT_EQ(info["computer_id"], "box");
  EXPECT_EQ(info["state"], "running");
  EXPECT_EQ(info["temporary"], true);
  EXPECT_EQ(info["network_access"], true);  // cannot be cut: reported as it really is
  EXPECT_EQ(info["desktop_environment"], false);
  EXPECT_TRUE(info["image"].is_null());
  EXPECT_TRUE(info["created_at"].is_string());
  EXPECT_TRUE(fs::is_directory(scratch() / "box" / "workspace"));

  std::ofstream(scratch() / "box" / "workspace" / "kept") << "x";
  auto taken = run(backend_->ops->create, request);
  EXPECT_EQ(taken->status(), VC_E_ALREADY_EXISTS);
  EXPECT_EQ(taken->message(), "Computer 'box' already exists.");
  request["adopt_existing"] = true;
  auto second = run(backend_->ops->create, request);
  ASSERT_EQ(second->status(), VC_OK) << second->message();
  EXPECT_EQ(json::parse(second->json())["created_at"], info["created_at"]);
  EXPECT_TRUE(fs::exists(scratch() / "box" / "workspace" / "kept"));
}

TEST_F(ProcessBackendTest, RefusesBadRequestsAtOnceWithAMessage) {
  expect_refused(backend_->ops->create, json::object(), "create");
  expect_refused(backend_->ops->create, {{"computer_id", "../escape"}}, "create");
  expect_refused(backend_->ops->create, {{"computer_id", "UPPER"}}, "create");
  expect_refused(backend_->ops->create, {{"computer_id", "-leading"}}, "create");
  expect_refused(backend_->ops->create, {{"computer_id", std::string(64, 'a')}}, "create");
  expect_refused(backend_->ops->attach, {{"computer_id", "a/b"}}, "attach");
  expect_refused(backend_->ops->remove, {{"computer_id", ".."}}, "remove");
  for (const json& bad_exec : {
           json{{"computer_id", "box"}, {"timeout_ms", 1000}, {"output_limit", 0}},
           json{{"computer_id", "box"}, {"command", "x"}, {"argv", {"x"}}, {"timeout_ms", 1000},
                {"output_limit", 0}},
           json{{"computer_id", "box"}, {"command", "x"}, {"timeout_ms", 0}, {"output_limit", 0}},
           json{{"computer_id", "box"}, {"command", "x"}, {"timeout_ms", 10}, {"output_limit", -1}},
           json{{"computer_id", "box"}, {"argv", json::array()}, {"timeout_ms", 10},
                {"output_limit", 0}},
       }) {
    vc_test::FakeOp op;
    std::string text = bad_exec.dump();
    EXPECT_EQ(backend_->ops->exec(backend_, text.data(), text.size(), nullptr, 0, op.get()),
              VC_OK)
        << bad_exec;
    ASSERT_TRUE(op.wait()) << bad_exec;
    EXPECT_EQ(op.status(), VC_E_INVALID_ARGUMENT) << bad_exec;
    EXPECT_EQ(op.message().rfind("Invalid exec request: ", 0), 0u) << op.message();
  }
  // A request that is not JSON at all is refused the same way (never rejected: ABI 1.1).
  vc_test::FakeOp op;
  std::string not_json = "{not json";
  EXPECT_EQ(backend_->ops->list(backend_, not_json.data(), not_json.size(), op.get()), VC_OK);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(op.completions(), 1);
  EXPECT_EQ(op.status(), VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(op.message(), "Invalid list request: it is not a JSON object");
  EXPECT_FALSE(fs::exists(dir_ / "escape"));
}

TEST_F(ProcessBackendTest, AttachFindsOnlyExistingComputers) {
  auto missing = run(backend_->ops->attach, {{"computer_id", "ghost"}, {"network_access", true},
                                             {"desktop_environment", false}, {"shell", "/bin/sh"}});
  EXPECT_EQ(missing->status(), VC_E_NOT_FOUND);
  EXPECT_EQ(missing->message(), "No computer named ghost.");

  create("box");
  auto found = run(backend_->ops->attach, {{"computer_id", "box"}, {"network_access", true},
                                           {"desktop_environment", false}, {"shell", "/bin/sh"}});
  ASSERT_EQ(found->status(), VC_OK);
  expect_matches_schema(json::parse(found->json()), "attach.result.json");
}

TEST_F(ProcessBackendTest, ListRestartRemoveAndFactoryReset) {
  auto empty = run(backend_->ops->list, json::object());
  ASSERT_EQ(empty->status(), VC_OK) << empty->message();
  EXPECT_EQ(json::parse(empty->json())["computers"].size(), 0u);

  create("one");
  create("two");
  auto listed = run(backend_->ops->list, json::object());
  json computers = json::parse(listed->json());
  expect_matches_schema(computers, "list.result.json");
  ASSERT_EQ(computers["computers"].size(), 2u);
  for (const auto& info : computers["computers"]) expect_matches_schema(info, "computer_info.json");

  auto restarted = run(backend_->ops->restart, {{"computer_id", "one"}});
  EXPECT_EQ(restarted->status(), VC_OK);
  EXPECT_EQ(run(backend_->ops->restart, {{"computer_id", "nope"}})->status(), VC_E_NOT_FOUND);

  std::ofstream(scratch() / "one" / "workspace" / "file") << "data";
  auto reset = run(backend_->ops->factory_reset, {{"computer_id", "one"}});
  ASSERT_EQ(reset->status(), VC_OK);
  expect_matches_schema(json::parse(reset->json()), "factory_reset.result.json");
  EXPECT_TRUE(fs::is_directory(scratch() / "one" / "workspace"));
  EXPECT_FALSE(fs::exists(scratch() / "one" / "workspace" / "file"));

  auto removed = run(backend_->ops->remove, {{"computer_id", "two"}});
  json result = json::parse(removed->json());
  expect_matches_schema(result, "remove.result.json");
  EXPECT_EQ(result["removed"], true);
  EXPECT_FALSE(fs::exists(scratch() / "two"));
  EXPECT_EQ(json::parse(run(backend_->ops->remove, {{"computer_id", "two"}})->json())["removed"],
            false);
}

TEST_F(ProcessBackendTest, UnsupportedOperationsAreNullSlots) {
  EXPECT_EQ(backend_->ops->set_network_access, nullptr);
  EXPECT_EQ(backend_->ops->get_desktop_environment, nullptr);
  EXPECT_EQ(backend_->ops->set_desktop_environment, nullptr);
}

TEST_F(ProcessBackendTest, ToolInstructionsSayItIsNotIsolated) {
  auto op = run(backend_->ops->tool_instructions, {{"shell", "/bin/bash"}, {"default_timeout_s", 120}});
  ASSERT_EQ(op->status(), VC_OK);
  json result = json::parse(op->json());
  expect_matches_schema(result, "tool_instructions.result.json");
  std::string text = result["instructions"];
  EXPECT_EQ(text.rfind("Execute a shell command on this host (NOT isolated)", 0), 0u) << text;
  EXPECT_NE(text.find("bash"), std::string::npos);
  EXPECT_NE(text.find("120"), std::string::npos);
}

// --- exec ----------------------------------------------------------------------------------------

TEST_F(ProcessBackendTest, ExecStreamsOutputAndReportsTheExitCode) {
  create("box");
  auto op = exec(shell("echo out; echo err >&2; exit 3"));
  ASSERT_EQ(op->status(), VC_OK) << op->message();
  json result = json::parse(op->json());
  expect_matches_schema(result, "exec.result.json");
  EXPECT_EQ(op->out(), "out\n");
  EXPECT_EQ(op->err(), "err\n");
  EXPECT_EQ(result["exit_code"], 3);
  EXPECT_EQ(result["outcome"], "exited");
  EXPECT_GE(result["duration_ms"].get<int64_t>(), 0);
  EXPECT_EQ(op->violations(), 0);
}

TEST_F(ProcessBackendTest, ExecRunsArgvWithoutAShellInTheWorkspace) {
  create("box");
  auto op = exec({{"computer_id", "box"}, {"argv", {"pwd"}}, {"timeout_ms", 5000},
                  {"output_limit", 0}});
  ASSERT_EQ(op->status(), VC_OK);
  EXPECT_EQ(op->out(), (scratch() / "box" / "workspace").string() + "\n");

  auto literal = exec({{"computer_id", "box"}, {"argv", {"echo", "$HOME;", "x"}},
                       {"timeout_ms", 5000}, {"output_limit", 0}});
  EXPECT_EQ(literal->out(), "$HOME; x\n");
}

TEST_F(ProcessBackendTest, ExecOfAMissingProgramExits127) {
  create("box");
  auto op = exec({{"computer_id", "box"}, {"argv", {"/nonexistent/program"}},
                  {"timeout_ms", 5000}, {"output_limit", 0}});
  ASSERT_EQ(op->status(), VC_OK);
  EXPECT_EQ(json::parse(op->json())["exit_code"], 127);
  EXPECT_NE(op->err().find("/nonexistent/program"), std::string::npos);
}

TEST_F(ProcessBackendTest, ExecFeedsStdinAndClosesIt) {
  create("box");
  std::string big(300000, 'x');  // larger than a socket buffer: written in pieces
  auto op = exec(shell("wc -c"), big);
  ASSERT_EQ(op->status(), VC_OK);
  EXPECT_EQ(std::stoul(op->out()), big.size());

  auto eof = exec(shell("cat; echo done"));  // no stdin: EOF at once, no hang
  EXPECT_EQ(eof->out(), "done\n");

  auto ignored = exec(shell("true"), big);  // the command never reads: no SIGPIPE, no hang
  EXPECT_EQ(ignored->status(), VC_OK);
}

TEST_F(ProcessBackendTest, ExecChecksTheWorkingDirectory) {
  create("box");
  auto missing = exec({{"computer_id", "box"}, {"command", "pwd"}, {"working_directory", "/no/such/dir"},
                       {"timeout_ms", 5000}, {"output_limit", 0}});
  EXPECT_EQ(missing->status(), VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(missing->message(), "Working directory '/no/such/dir' does not exist.");
  // Error codes are namespaced by the plugin's name (schemas/error_details.json).
  EXPECT_EQ(json::parse(missing->json()).value("code", ""), "process.working_directory_missing")
      << missing->json();

  auto tmp = exec({{"computer_id", "box"}, {"command", "pwd"}, {"working_directory", dir_.string()},
                   {"timeout_ms", 5000}, {"output_limit", 0}});
  EXPECT_EQ(tmp->out(), dir_.string() + "\n");

  auto no_computer = exec(shell("true", "ghost"));
  EXPECT_EQ(no_computer->status(), VC_E_NOT_FOUND);
}

TEST_F(ProcessBackendTest, TimeoutKillsTheWholeProcessGroup) {
  create("box");
  fs::path pid_file = dir_ / "background.pid";
  auto op = exec(shell("sleep 30 & echo $! > " + pid_file.string() + "; sleep 30", "box", 300));
  ASSERT_EQ(op->status(), VC_OK);
  json result = json::parse(op->json());
  EXPECT_EQ(result["outcome"], "timed_out");
  EXPECT_EQ(result["exit_code"], 128 + SIGKILL);
  EXPECT_LT(result["duration_ms"].get<int64_t>(), 5000);

  pid_t background = 0;
  std::ifstream(pid_file) >> background;
  ASSERT_GT(background, 0);
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(vc_test::process_alive(background)) << "the background child survived the timeout";
}

TEST_F(ProcessBackendTest, OutputLimitKillsTheCommand) {
  create("box");
  auto op = exec(shell("yes", "box", 10000, 100000));
  ASSERT_EQ(op->status(), VC_OK);
  json result = json::parse(op->json());
  EXPECT_EQ(result["outcome"], "output_limit_exceeded");
  EXPECT_LE(op->out().size(), 100000u);

  auto exact = exec(shell("head -c 100 /dev/zero", "box", 10000, 100));
  EXPECT_EQ(json::parse(exact->json())["outcome"], "exited");
  EXPECT_EQ(exact->out().size(), 100u);
}

TEST_F(ProcessBackendTest, HostTruncationEndsTheCommand) {
  create("box");
  auto op = start_exec(shell("yes"), {}, /*truncate_after=*/50000);
  ASSERT_TRUE(op->wait());
  EXPECT_EQ(json::parse(op->json())["outcome"], "output_limit_exceeded");
  EXPECT_EQ(op->violations(), 0);
}

TEST_F(ProcessBackendTest, BackpressureLosesNoOutput) {
  create("box");
  auto op = std::make_unique<vc_test::FakeOp>();
  op->backpressure_every = 2;
  std::string request = shell("seq 1 20000").dump();
  ASSERT_EQ(backend_->ops->exec(backend_, request.data(), request.size(), nullptr, 0, op->get()),
            VC_OK);
  ASSERT_TRUE(op->wait());
  std::string expected;
  for (int i = 1; i <= 20000; ++i) expected += std::to_string(i) + "\n";
  EXPECT_EQ(op->out(), expected);
}

TEST_F(ProcessBackendTest, CancelKillsARunningCommand) {
  create("box");
  auto op = start_exec(shell("sleep 30"));
  std::this_thread::sleep_for(200ms);
  auto cancelled_at = std::chrono::steady_clock::now();
  backend_->ops->cancel(backend_, op->get());
  backend_->ops->cancel(backend_, op->get());  // idempotent
  ASSERT_TRUE(op->wait());
  EXPECT_EQ(op->status(), VC_E_CANCELLED);
  EXPECT_LT(op->completed_at() - cancelled_at, 2s);
  backend_->ops->cancel(backend_, op->get());  // after completion: harmless
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(op->completions(), 1);
}

TEST_F(ProcessBackendTest, PolledCancellationStopsACommandToo) {
  create("box");
  auto op = start_exec(shell("sleep 30"));
  std::this_thread::sleep_for(200ms);
  op->cancelled = true;  // is_cancelled() only, no ops->cancel()
  ASSERT_TRUE(op->wait(5s));
  EXPECT_EQ(op->status(), VC_E_CANCELLED);
}

TEST_F(ProcessBackendTest, ExecsOfOneComputerRunInCallOrder) {
  create("box");
  auto first = start_exec(shell("sleep 0.3; echo first >> order"));
  auto second = start_exec(shell("echo second >> order"));
  auto third = start_exec(shell("cat order"));
  ASSERT_TRUE(third->wait());
  EXPECT_TRUE(first->completed());
  EXPECT_TRUE(second->completed());
  EXPECT_EQ(third->out(), "first\nsecond\n");
}

TEST_F(ProcessBackendTest, ExecsOfDifferentComputersRunInParallel) {
  create("one");
  create("two");
  auto started = std::chrono::steady_clock::now();
  auto a = start_exec(shell("sleep 0.6", "one"));
  auto b = start_exec(shell("sleep 0.6", "two"));
  ASSERT_TRUE(a->wait());
  ASSERT_TRUE(b->wait());
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1100ms);
}

TEST_F(ProcessBackendTest, CancelWithdrawsAQueuedExecAtOnce) {
  create("box");
  auto running = start_exec(shell("sleep 1"));
  auto queued = start_exec(shell("echo should-not-run"));
  std::this_thread::sleep_for(100ms);
  backend_->ops->cancel(backend_, queued->get());
  EXPECT_TRUE(queued->wait(200ms));  // did not wait for the running one
  EXPECT_EQ(queued->status(), VC_E_CANCELLED);
  EXPECT_EQ(queued->out(), "");
  ASSERT_TRUE(running->wait());
  EXPECT_EQ(running->status(), VC_OK);
}

// --- wait_for_death and destroy -----------------------------------------------------------------

TEST_F(ProcessBackendTest, WaitForDeathEndsOnRemoveOrCancel) {
  auto missing = run(backend_->ops->wait_for_death, {{"computer_id", "ghost"}});
  EXPECT_EQ(missing->status(), VC_E_NOT_FOUND);

  create("box");
  auto cancelled = start(backend_->ops->wait_for_death, {{"computer_id", "box"}});
  auto removed = start(backend_->ops->wait_for_death, {{"computer_id", "box"}});
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(cancelled->completed());
  backend_->ops->cancel(backend_, cancelled->get());
  ASSERT_TRUE(cancelled->wait(1s));
  EXPECT_EQ(cancelled->status(), VC_E_CANCELLED);

  EXPECT_FALSE(removed->completed());
  run(backend_->ops->remove, {{"computer_id", "box"}});
  ASSERT_TRUE(removed->wait(1s));
  ASSERT_EQ(removed->status(), VC_OK);
  json result = json::parse(removed->json());
  expect_matches_schema(result, "wait_for_death.result.json");
  EXPECT_EQ(result["reason"], "removed");
}

TEST_F(ProcessBackendTest, DestroyStopsEverythingAndNeverCallsBackAfterwards) {
  create("box");
  fs::path pid_file = dir_ / "child.pid";
  auto op = start_exec(shell("echo $$ > " + pid_file.string() + "; exec sleep 30"));
  auto waiter = start(backend_->ops->wait_for_death, {{"computer_id", "box"}});
  std::this_thread::sleep_for(300ms);
  auto before = std::chrono::steady_clock::now();
  backend_->ops->destroy(backend_);
  backend_ = nullptr;
  EXPECT_LT(std::chrono::steady_clock::now() - before, 3s);
  EXPECT_EQ(op->completions(), 0);  // no host call after (or during) destroy for a live op
  EXPECT_EQ(waiter->completions(), 0);
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  ASSERT_GT(child, 0);
  EXPECT_FALSE(vc_test::process_alive(child));
}

}  // namespace
