// lifecycle_tools_test.cpp — the --lifecycle-tools tools (computer_list, computer_create,
// computer_restart, computer_factory_reset, computer_delete) against the real engines.
//
// Why these need an engine: each tool changes real containers, so each test checks the engine's
// own view (the container exists, is gone, was restarted) besides the payload. Operations on the
// server's own computer must not look like its death: terminal_execute has to work right after
// them, on the same computer (restart) or a fresh one (factory reset, delete).
#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "engine_test.h"

namespace vc::integration {
namespace {

const std::vector<std::string> kBaseTools = {"terminal_execute", "computer_ui",    "runtime_status",
                                             "set_network_access", "set_desktop_environment", "list_directory", "read_file",
                                             "write_file",       "edit_file"};
const std::vector<std::string> kProcessTools = {"process_start", "process_read", "process_write",
                                                "process_kill", "process_list", "process_output",
                                                "process_input", "process_signal"};
const std::vector<std::string> kCheckpointTools = {"checkpoint_create", "checkpoint_list",
                                                   "checkpoint_restore", "checkpoint_delete"};
const std::vector<std::string> kLifecycleTools = {"computer_list", "computer_create",
                                                  "computer_restart", "computer_factory_reset",
                                                  "computer_delete", "computer_fork"};
// The keys of one computer_list entry, in order.
const std::vector<std::string> kListingKeys = {
    "computer_id",  "sandbox_id", "backend",        "state",
    "temporary",    "image",      "created_at",     "network_access",
    "desktop_environment", "desktop_url"};
// The keys of the create / restart / factory reset outcome, in order.
const std::vector<std::string> kOutcomeKeys = {"ok", "computer_id", "sandbox_id", "temporary"};

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

class LifecycleToolsTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    HostOptions options;
    options.extra_args = {"--lifecycle-tools"};
    host_ = start_host(options);
  }
  void TearDown() override {
    if (host_) close_host(host_);
    EngineTest::TearDown();
  }

  Json tool(const std::string& name, const Json& arguments = Json::object()) {
    return host_->call_tool(name, arguments, 180s);
  }
  // The payload of a call that must succeed.
  Json ok(const std::string& name, const Json& arguments = Json::object()) {
    const Json result = tool(name, arguments);
    EXPECT_FALSE(test::McpClient::is_error(result))
        << name << " " << arguments.dump() << " failed: " << result.dump().substr(0, 800);
    return test::McpClient::payload_of(result);
  }
  // The error message of a call that must fail (the "error" of its payload, or its text when
  // the call was refused before the tool ran).
  std::string fails(const std::string& name, const Json& arguments) {
    const Json result = tool(name, arguments);
    EXPECT_TRUE(test::McpClient::is_error(result))
        << name << " " << arguments.dump() << " succeeded: " << result.dump().substr(0, 800);
    const Json payload = test::McpClient::payload_of(result);
    if (payload.is_string()) return payload.get<std::string>();
    return payload.is_object() ? payload.value("error", "") : payload.dump();
  }
  // stdout of a terminal_execute that must succeed and exit 0.
  std::string shell(const std::string& command) {
    Json payload = execute(*host_, {{"command", command}});
    EXPECT_EQ(payload["exit_code"], 0) << command << ": " << payload.dump();
    return payload.value("stdout", "");
  }

  // The engine's short id of a container (what sandbox_id shows), "" when it does not exist.
  std::string short_id_at_engine(const std::string& container) const {
    const auto inspected = engine().inspect_container(container);
    if (!inspected) return {};
    return inspected->value("Id", "").substr(0, 12);
  }
  std::string started_at(const std::string& container) const {
    const auto inspected = engine().inspect_container(container);
    if (!inspected) return {};
    return inspected->value(Json::json_pointer("/State/StartedAt"), "");
  }

  // A create / restart / factory reset outcome for `id`; returns its sandbox_id.
  std::string expect_outcome(Json payload, const std::string& id) {
    EXPECT_EQ(keys_of(payload), kOutcomeKeys) << payload.dump();
    EXPECT_EQ(payload["ok"], true);
    EXPECT_EQ(payload["computer_id"], id);
    EXPECT_EQ(payload["temporary"], false);
    EXPECT_EQ(payload["sandbox_id"], short_id_at_engine(container_name_for(id))) << payload.dump();
    return payload.value("sandbox_id", "");
  }

  std::unique_ptr<test::McpClient> host_;
};

TEST_P(LifecycleToolsTest, ToolsListAddsTheLifecycleToolsLast) {
  std::vector<Json> tools;
  Json params = Json::object();
  for (int page = 0; page < 100; ++page) {
    const Json result = host_->request_result("tools/list", params, 30s);
    for (const auto& tool : result.at("tools")) tools.push_back(tool);
    if (!result.contains("nextCursor")) break;
    params = {{"cursor", result["nextCursor"]}};
  }
  std::vector<std::string> expected = kBaseTools;
  expected.insert(expected.end(), kProcessTools.begin(), kProcessTools.end());
  expected.insert(expected.end(), kCheckpointTools.begin(), kCheckpointTools.end());
  expected.insert(expected.end(), kLifecycleTools.begin(), kLifecycleTools.end());
  expected.push_back("read_activity");  // the App's, appended after every catalog tool
  std::vector<std::string> names;
  for (const auto& tool : tools) names.push_back(tool.value("name", ""));
  ASSERT_EQ(names, expected);

  for (const auto& tool : tools) {
    const std::string name = tool.value("name", "");
    const bool lifecycle =
        std::find(kLifecycleTools.begin(), kLifecycleTools.end(), name) != kLifecycleTools.end();
    const Json schema = tool.value("inputSchema", Json::object());
    const Json properties = schema.value("properties", Json::object());
    const bool checkpoint =
        std::find(kCheckpointTools.begin(), kCheckpointTools.end(), name) != kCheckpointTools.end();
    if (checkpoint) {
      // With --lifecycle-tools they act on any computer; without a computer_id, the server's.
      EXPECT_EQ(properties.value(Json::json_pointer("/computer_id/type"), ""), "string") << name;
      const Json required = schema.value("required", Json::array());
      EXPECT_EQ(std::find(required.begin(), required.end(), Json("computer_id")), required.end())
          << tool.dump();
      const bool destructive = name == "checkpoint_restore" || name == "checkpoint_delete";
      EXPECT_EQ(tool.value(Json::json_pointer("/annotations/destructiveHint"), !destructive),
                destructive)
          << tool.dump();
      continue;
    }
    if (!lifecycle) {
      EXPECT_FALSE(properties.contains("computer_id")) << name;
      EXPECT_FALSE(properties.contains("temporary")) << name;
      continue;
    }
    const bool destructive = name == "computer_factory_reset" || name == "computer_delete";
    EXPECT_EQ(tool.value(Json::json_pointer("/annotations/destructiveHint"), !destructive),
              destructive)
        << tool.dump();
    if (name == "computer_list") {
      EXPECT_TRUE(properties.empty()) << tool.dump();
      continue;
    }
    EXPECT_EQ(properties.value(Json::json_pointer("/computer_id/type"), ""), "string") << name;
    EXPECT_TRUE(properties.contains(Json::json_pointer("/computer_id/pattern"))) << name;
    if (name == "computer_create") {
      EXPECT_FALSE(schema.contains("required")) << tool.dump();
      EXPECT_EQ(properties.value(Json::json_pointer("/temporary/default"), Json()), false);
      EXPECT_EQ(properties.value(Json::json_pointer("/network_access/type"), ""), "boolean");
    } else if (name == "computer_fork") {
      EXPECT_EQ(schema.value("required", Json()), Json::array({"computer_id"})) << tool.dump();
      EXPECT_TRUE(properties.contains("checkpoint")) << tool.dump();
      EXPECT_TRUE(properties.contains("new_computer_id")) << tool.dump();
    } else {
      EXPECT_EQ(schema.value("required", Json()), Json::array({"computer_id"})) << tool.dump();
    }
  }
}

TEST_P(LifecycleToolsTest, ListShowsTheServersComputerAndACreatedOneSortedById) {
  ok("computer_ui");
  const std::string other = another_computer_id();
  const std::string other_sandbox =
      expect_outcome(ok("computer_create", {{"computer_id", other}, {"network_access", false}}), other);
  EXPECT_TRUE(engine().container_running(container_name_for(other)));

  Json listed = ok("computer_list");
  EXPECT_EQ(keys_of(listed), (std::vector<std::string>{"computers", "count"})) << listed.dump();
  ASSERT_TRUE(listed["computers"].is_array()) << listed.dump();
  EXPECT_EQ(listed["count"], listed["computers"].size());

  std::vector<std::string> ids;
  for (const auto& entry : listed["computers"]) ids.push_back(entry.value("computer_id", ""));
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << listed.dump();

  int seen = 0;
  for (Json entry : listed["computers"]) {
    const std::string id = entry.value("computer_id", "");
    if (id != computer_id() && id != other) continue;
    ++seen;
    EXPECT_EQ(keys_of(entry), kListingKeys) << entry.dump();
    EXPECT_EQ(entry["sandbox_id"], short_id_at_engine(container_name_for(id))) << entry.dump();
    EXPECT_EQ(entry["backend"], engine().name);
    EXPECT_EQ(entry["state"], "running");
    EXPECT_EQ(entry["temporary"], false);
    EXPECT_TRUE(entry["image"].is_string()) << entry.dump();
    EXPECT_TRUE(entry["created_at"].is_string()) << entry.dump();
    EXPECT_EQ(entry["network_access"], id == computer_id()) << entry.dump();
    EXPECT_EQ(entry["desktop_environment"], false);
    EXPECT_TRUE(entry["desktop_url"].is_null()) << entry.dump();
    if (id == other) {
      EXPECT_EQ(entry["sandbox_id"], other_sandbox);
    }
  }
  EXPECT_EQ(seen, 2) << "the server's computer or the created one is missing: " << listed.dump();
}

TEST_P(LifecycleToolsTest, CreateRefusesATakenIdATemporaryComputerAndAnInvalidId) {
  const std::string id = another_computer_id();
  expect_outcome(ok("computer_create", {{"computer_id", id}}), id);
  EXPECT_TRUE(engine().container_running(container_name_for(id)));
  const std::string sandbox = short_id_at_engine(container_name_for(id));

  EXPECT_EQ(fails("computer_create", {{"computer_id", id}}), "Computer '" + id + "' already exists.");
  EXPECT_EQ(short_id_at_engine(container_name_for(id)), sandbox) << "the existing one was replaced";

  const std::string temporary = another_computer_id();
  EXPECT_EQ(fails("computer_create", {{"computer_id", temporary}, {"temporary", true}}),
            "Temporary computers are disabled.");
  EXPECT_FALSE(engine().inspect_container(container_name_for(temporary)).has_value());

  const std::string invalid = "Bad_ID";
  remove_at_teardown(container_name_for(invalid));
  const std::string refused = fails("computer_create", {{"computer_id", invalid}});
  EXPECT_NE(refused, "") << "no reason given";
  EXPECT_FALSE(engine().inspect_container(container_name_for(invalid)).has_value());
}

TEST_P(LifecycleToolsTest, AnIdOutsideTheSchemasPatternIsAnInputValidationError) {
  // The inputSchema promises ^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$ for computer_id, so a
  // violation must be refused like any other schema violation, saying which argument is wrong,
  // before any backend op runs.
  remove_at_teardown(container_name_for("Bad_ID"));
  remove_at_teardown(container_name_for("-bad"));
  for (const std::string& name : kLifecycleTools) {
    if (name == "computer_list") continue;
    for (const std::string invalid : {"Bad_ID", "-bad"}) {
      const std::string error = fails(name, {{"computer_id", invalid}});
      EXPECT_EQ(error.rfind("Input validation error: ", 0), 0u) << name << " " << invalid << ": " << error;
      EXPECT_NE(error.find("computer_id"), std::string::npos) << name << " " << invalid << ": " << error;
    }
  }
  EXPECT_FALSE(engine().inspect_container(container_name_for("Bad_ID")).has_value());
  EXPECT_FALSE(engine().inspect_container(container_name_for("-bad")).has_value());
}

TEST_P(LifecycleToolsTest, CreateWithoutAnIdGeneratesOneAndDeleteRemovesIt) {
  Json created = ok("computer_create");
  const std::string id = created.value("computer_id", "");
  ASSERT_TRUE(std::regex_match(id, std::regex("^computer-[0-9a-f]{8}$"))) << created.dump();
  remove_at_teardown(container_name_for(id));
  expect_outcome(created, id);
  EXPECT_TRUE(engine().container_running(container_name_for(id)));

  Json deleted = ok("computer_delete", {{"computer_id", id}});
  EXPECT_EQ(keys_of(deleted), (std::vector<std::string>{"ok", "computer_id", "deleted"}))
      << deleted.dump();
  EXPECT_EQ(deleted["ok"], true);
  EXPECT_EQ(deleted["computer_id"], id);
  EXPECT_EQ(deleted["deleted"], true);
  EXPECT_FALSE(engine().inspect_container(container_name_for(id)).has_value());

  EXPECT_EQ(fails("computer_delete", {{"computer_id", id}}), "Computer '" + id + "' was not found.");
}

TEST_P(LifecycleToolsTest, RestartOfTheServersComputerKeepsFilesAndTheServerUsable) {
  shell("echo kept > /workspace/kept.txt && nohup sleep 1000 >/dev/null 2>&1 &");
  const std::string sandbox = short_id_at_engine(container_name());
  ASSERT_NE(sandbox, "");
  const std::string started_before = started_at(container_name());
  const auto names = engine().process_names(container_name());
  ASSERT_NE(std::find(names.begin(), names.end(), "sleep"), names.end()) << "no background sleep";

  EXPECT_EQ(expect_outcome(ok("computer_restart", {{"computer_id", computer_id()}}), computer_id()),
            sandbox);

  // Really restarted: a new start time, and the background process is gone.
  EXPECT_NE(started_at(container_name()), started_before);
  const auto after = engine().process_names(container_name());
  EXPECT_EQ(std::find(after.begin(), after.end(), "sleep"), after.end()) << "not restarted";
  // The server goes on using the same computer, with its files.
  Json ran = execute(*host_, {{"command", "cat /workspace/kept.txt"}});
  EXPECT_EQ(ran["exit_code"], 0) << ran.dump();
  EXPECT_EQ(ran["stdout"], "kept\n") << ran.dump();
  EXPECT_EQ(short_id_at_engine(container_name()), sandbox);
}

TEST_P(LifecycleToolsTest, RestartOfAnotherComputerKeepsItsFilesAndAnUnknownIdIsNotFound) {
  const std::string other = another_computer_id();
  const std::string sandbox = expect_outcome(ok("computer_create", {{"computer_id", other}}), other);
  const auto wrote = engine().run_cli(
      {"exec", container_name_for(other), "sh", "-c", "echo kept > /workspace/kept.txt"});
  ASSERT_TRUE(wrote.ok()) << wrote.out << wrote.err;
  const std::string started_before = started_at(container_name_for(other));

  EXPECT_EQ(expect_outcome(ok("computer_restart", {{"computer_id", other}}), other), sandbox);
  EXPECT_NE(started_at(container_name_for(other)), started_before) << "not restarted";
  const auto read = engine().run_cli({"exec", container_name_for(other), "cat", "/workspace/kept.txt"});
  EXPECT_EQ(read.out, "kept\n") << read.err;

  const std::string unknown = another_computer_id();
  const std::string error = fails("computer_restart", {{"computer_id", unknown}});
  EXPECT_NE(error.find("was not found"), std::string::npos) << error;
  EXPECT_FALSE(engine().inspect_container(container_name_for(unknown)).has_value());
}

TEST_P(LifecycleToolsTest, FactoryResetOfTheServersComputerGivesAFreshFilesystem) {
  shell("echo old > /workspace/old.txt");
  // The outcome's sandbox_id is the reset container's, as the engine shows it.
  expect_outcome(ok("computer_factory_reset", {{"computer_id", computer_id()}}), computer_id());
  EXPECT_TRUE(engine().container_running(container_name()));

  Json ran = execute(*host_, {{"command", "ls -A /workspace; test -e /workspace/old.txt"}});
  EXPECT_NE(ran["exit_code"], 0) << "old.txt survived the reset: " << ran.dump();
  EXPECT_EQ(ran["stdout"], "") << ran.dump();
  EXPECT_EQ(ran["computer_id"], computer_id());
  // And it is an ordinary working computer again.
  EXPECT_EQ(shell("echo new > /workspace/new.txt && cat /workspace/new.txt"), "new\n");
}

TEST_P(LifecycleToolsTest, FactoryResetOfAnotherComputerKeepsItsIdAndSettings) {
  const std::string other = another_computer_id();
  expect_outcome(ok("computer_create", {{"computer_id", other}, {"network_access", false}}), other);
  const auto wrote = engine().run_cli(
      {"exec", container_name_for(other), "sh", "-c", "echo old > /workspace/old.txt"});
  ASSERT_TRUE(wrote.ok()) << wrote.out << wrote.err;

  expect_outcome(ok("computer_factory_reset", {{"computer_id", other}}), other);
  const auto looked = engine().run_cli({"exec", container_name_for(other), "ls", "-A", "/workspace"});
  EXPECT_TRUE(looked.ok()) << looked.err;
  EXPECT_EQ(looked.out, "") << "the files survived the reset";
  EXPECT_EQ(engine().container_ip(container_name_for(other)), "") << "network access came back";

  Json listed = ok("computer_list");
  bool found = false;
  for (Json entry : listed["computers"]) {
    if (entry.value("computer_id", "") != other) continue;
    found = true;
    EXPECT_EQ(entry["network_access"], false) << entry.dump();
    EXPECT_EQ(entry["state"], "running") << entry.dump();
  }
  EXPECT_TRUE(found) << listed.dump();
}

TEST_P(LifecycleToolsTest, DeletingTheServersComputerMakesTheNextCommandCreateAFreshOne) {
  shell("echo old > /workspace/old.txt");
  const std::string sandbox = short_id_at_engine(container_name());
  ASSERT_NE(sandbox, "");

  Json deleted = ok("computer_delete", {{"computer_id", computer_id()}});
  EXPECT_EQ(deleted["deleted"], true) << deleted.dump();
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value()) << "not deleted";
  Json status = ok("runtime_status");
  EXPECT_EQ(status["computer_attached"], false) << status.dump();
  EXPECT_EQ(fails("computer_delete", {{"computer_id", computer_id()}}),
            "Computer '" + computer_id() + "' was not found.");

  Json ran = execute(*host_, {{"command", "ls -A /workspace; test -e /workspace/old.txt"}});
  EXPECT_NE(ran["exit_code"], 0) << "old.txt came back: " << ran.dump();
  EXPECT_EQ(ran["stdout"], "") << ran.dump();
  EXPECT_TRUE(engine().container_running(container_name()));
  EXPECT_NE(short_id_at_engine(container_name()), sandbox) << "the same container again";
}

VC_INSTANTIATE_FOR_ENGINES(LifecycleToolsTest);

}  // namespace
}  // namespace vc::integration
