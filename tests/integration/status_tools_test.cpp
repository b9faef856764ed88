// status_tools_test.cpp — computer_ui, runtime_status and set_network_access against the real
// engines, and the catalog that lists them without --lifecycle-tools.
//
// Why these need an engine: runtime_status must report the computer without ever creating it
// (the container must really be absent at the engine afterwards), computer_ui must really create
// it, and set_network_access must really cut the computer off the network and give it back. The
// only address contacted is a listener the test started itself on the engine's bridge network.
#include <string>
#include <vector>

#include "engine_test.h"

namespace vc::integration {
namespace {

// The keys of a status payload (runtime_status, computer_ui), in the order the original writes.
const std::vector<std::string> kStatusKeys = {
    "operation",        "computer_id",     "computer_attached",   "desktop_environment",
    "network_access",   "desktop_url",     "workspace_directory", "runtime_state",
    "runtime_phase",    "runtime_message", "runtime_progress",    "runtime_total",
    "downloaded_bytes", "download_total_bytes", "runtime_error", "computer_state",
    "computer_error",   "persistence",     "network_enforcement"};

// The keys of a set_network_access payload, in order.
const std::vector<std::string> kNetworkKeys = {"operation",      "computer_id",
                                               "desktop_environment", "desktop_url",
                                               "network_access", "workspace_directory"};

// The tools every server offers, in tools/list order.
const std::vector<std::string> kBaseTools = {"terminal_execute", "computer_ui",    "runtime_status",
                                             "set_network_access", "set_desktop_environment", "list_directory", "read_file",
                                             "write_file",       "edit_file",
                                             // on by default where the computers hold processes
                                             "process_start", "process_read", "process_write",
                                             "process_kill", "process_list", "process_output",
                                             "process_input", "process_signal",
                                             // on by default where the backend keeps checkpoints
                                             "checkpoint_create", "checkpoint_list",
                                             "checkpoint_restore", "checkpoint_delete",
                                             "read_activity"};

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

class StatusToolsTest : public EngineTest {
 protected:
  static constexpr const char* kBanner = "vc-status-listener";

  // The payload of a call that must succeed.
  static Json ok(test::McpClient& host, const std::string& name, const Json& arguments = Json::object()) {
    const Json result = host.call_tool(name, arguments, 180s);
    EXPECT_FALSE(test::McpClient::is_error(result))
        << name << " " << arguments.dump() << " failed: " << result.dump().substr(0, 800);
    return test::McpClient::payload_of(result);
  }

  // Every tool of tools/list, following pagination cursors if the server pages.
  static std::vector<Json> all_tools(test::McpClient& host) {
    std::vector<Json> tools;
    Json params = Json::object();
    for (int page = 0; page < 100; ++page) {
      const Json result = host.request_result("tools/list", params, 30s);
      for (const auto& tool : result.at("tools")) tools.push_back(tool);
      if (!result.contains("nextCursor")) break;
      params = {{"cursor", result["nextCursor"]}};
    }
    return tools;
  }

  // The runtime_* fields: here the container runtime needs no preparation.
  // `engine_error`: what runtime_error must contain (null expected when empty).
  static void expect_runtime_ready(Json payload, const std::string& engine_error = {}) {
    EXPECT_EQ(payload["runtime_state"], "ready");
    EXPECT_EQ(payload["runtime_phase"], "ready");
    EXPECT_EQ(payload["runtime_message"], "Container runtime bootstrap is not required.");
    EXPECT_EQ(payload["runtime_progress"], 4.0);
    EXPECT_TRUE(payload["runtime_progress"].is_number_float()) << payload.dump();
    EXPECT_EQ(payload["runtime_total"], 4.0);
    EXPECT_TRUE(payload["runtime_total"].is_number_float()) << payload.dump();
    EXPECT_TRUE(payload["downloaded_bytes"].is_null()) << payload.dump();
    EXPECT_TRUE(payload["download_total_bytes"].is_null()) << payload.dump();
    if (engine_error.empty()) {
      EXPECT_TRUE(payload["runtime_error"].is_null()) << payload.dump();
    } else {
      EXPECT_NE(payload["runtime_error"].get<std::string>().find(engine_error), std::string::npos)
          << payload.dump();
    }
  }

  // A status payload of this test's computer on a headless server.
  void expect_status(Json payload, bool attached, bool network_access,
                     const std::string& engine_error = {}) {
    EXPECT_EQ(keys_of(payload), kStatusKeys) << payload.dump();
    EXPECT_EQ(payload["operation"], "idle");
    EXPECT_EQ(payload["computer_id"], computer_id());
    EXPECT_EQ(payload["computer_attached"], attached);
    EXPECT_EQ(payload["desktop_environment"], false);
    EXPECT_EQ(payload["network_access"], network_access);
    EXPECT_TRUE(payload["desktop_url"].is_null()) << payload.dump();
    EXPECT_EQ(payload["workspace_directory"], "/workspace");
    expect_runtime_ready(payload, engine_error);
  }

  // Connects from inside the computer to the listener (bash's /dev/tcp, bounded by timeout).
  Json connect_from_computer(test::McpClient& host, const std::string& listener) {
    return execute(host, {{"command", "timeout 5 bash -c 'exec 3<>/dev/tcp/" + listener +
                                          "/8080 && cat <&3'"},
                          {"timeout", 30}});
  }
};

TEST_P(StatusToolsTest, ToolsListHasTheStatusToolsInOrderAndNoLifecycleTools) {
  auto host = start_host();
  const std::vector<Json> tools = all_tools(*host);
  std::vector<std::string> names;
  for (const auto& tool : tools) names.push_back(tool.value("name", ""));
  EXPECT_EQ(names, kBaseTools);

  const Json app_only = {{"ui", {{"visibility", Json::array({"app"})}}}};
  for (const auto& tool : tools) {
    const std::string name = tool.value("name", "");
    EXPECT_FALSE(name.rfind("computer_", 0) == 0 && name != "computer_ui")
        << name << " is listed without --lifecycle-tools";
    const Json properties = tool["inputSchema"].value("properties", Json::object());
    EXPECT_FALSE(properties.contains("computer_id")) << name << ": " << properties.dump();
    EXPECT_FALSE(properties.contains("temporary")) << name << ": " << properties.dump();
    if (name == "computer_ui") {
      EXPECT_EQ(tool.value("title", ""), "Open Virtual Computer") << tool.dump();
    }
    if (name == "runtime_status" || name == "set_network_access") {
      EXPECT_EQ(tool.value("_meta", Json()), app_only) << tool.dump();
    }
    if (name == "set_network_access") {
      EXPECT_EQ(tool["inputSchema"].value("required", Json()), Json::array({"enabled"}))
          << tool.dump();
      EXPECT_EQ(properties.value("enabled", Json()).value("type", ""), "boolean") << tool.dump();
    }
  }
  close_host(host);
}

TEST_P(StatusToolsTest, RuntimeStatusNeverCreatesTheComputerAndComputerUiDoes) {
  auto host = start_host();

  const Json before = ok(*host, "runtime_status");
  expect_status(before, /*attached=*/false, /*network_access=*/true);
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value())
      << "runtime_status created " << container_name();

  const Json opened = ok(*host, "computer_ui");
  expect_status(opened, /*attached=*/true, /*network_access=*/true);
  EXPECT_TRUE(engine().container_running(container_name()))
      << "computer_ui did not start " << container_name();

  const Json after = ok(*host, "runtime_status");
  expect_status(after, /*attached=*/true, /*network_access=*/true);
  close_host(host);
}

TEST_P(StatusToolsTest, RuntimeStatusBeforeAttachReportsTheConfiguredNetworkAccess) {
  HostOptions options;
  options.extra_args = {"--no-network"};
  auto host = start_host(options);
  expect_status(ok(*host, "runtime_status"), /*attached=*/false, /*network_access=*/false);
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value());
  close_host(host);
}

TEST_P(StatusToolsTest, ComputerUiWithTheEngineDownGivesTheBackendsMessage) {
  const std::string address = "unix:///tmp/nonexistent.sock";
  HostOptions options;
  options.default_address = false;
  options.extra_args = {"--" + engine().address_option, address};
  auto host = start_host(options);

  const Json result = host->call_tool("computer_ui", Json::object(), 60s);
  EXPECT_TRUE(test::McpClient::is_error(result)) << result.dump();
  const std::string error = test::McpClient::payload_of(result).value("error", "");
  EXPECT_EQ(error.rfind(engine().unreachable_prefix + address + ": ", 0), 0u) << error;

  // The failed acquisition leaves nothing attached, and the status tool still answers, saying
  // why the engine cannot be reached.
  expect_status(ok(*host, "runtime_status"), /*attached=*/false, /*network_access=*/true,
                engine().unreachable_prefix + address);
  close_host(host);
}

TEST_P(StatusToolsTest, SetNetworkAccessReallyCutsTheComputerOffAndGivesItBack) {
  const std::string listener = start_listener(kBanner);
  ASSERT_FALSE(listener.empty());
  auto host = start_host();

  // On a fresh server the call creates the computer first, then takes its network away.
  Json disabled = ok(*host, "set_network_access", {{"enabled", false}});
  EXPECT_EQ(keys_of(disabled), kNetworkKeys) << disabled.dump();
  EXPECT_EQ(disabled["operation"], "idle");
  EXPECT_EQ(disabled["computer_id"], computer_id());
  EXPECT_EQ(disabled["desktop_environment"], false);
  EXPECT_TRUE(disabled["desktop_url"].is_null()) << disabled.dump();
  EXPECT_EQ(disabled["network_access"], false);
  EXPECT_EQ(disabled["workspace_directory"], "/workspace");
  EXPECT_TRUE(engine().container_running(container_name()));
  EXPECT_EQ(engine().container_ip(container_name()), "") << "still on a network";

  Json cut_off = connect_from_computer(*host, listener);
  EXPECT_NE(cut_off["exit_code"], 0) << cut_off.dump();
  EXPECT_EQ(cut_off["stdout"], "") << cut_off.dump();
  EXPECT_NE(cut_off["stderr"].get<std::string>().find("Network is unreachable"), std::string::npos)
      << cut_off.dump();
  EXPECT_EQ(cut_off["network_access"], false);
  expect_status(ok(*host, "runtime_status"), /*attached=*/true, /*network_access=*/false);

  Json enabled = ok(*host, "set_network_access", {{"enabled", true}});
  EXPECT_EQ(keys_of(enabled), kNetworkKeys) << enabled.dump();
  EXPECT_EQ(enabled["network_access"], true);
  EXPECT_NE(engine().container_ip(container_name()), "") << "not back on the bridge";

  Json reached = connect_from_computer(*host, listener);
  EXPECT_EQ(reached["exit_code"], 0) << reached.dump();
  EXPECT_EQ(reached["stdout"], std::string(kBanner) + "\n") << reached.dump();
  EXPECT_EQ(reached["network_access"], true);
  expect_status(ok(*host, "runtime_status"), /*attached=*/true, /*network_access=*/true);
  close_host(host);
}

TEST_P(StatusToolsTest, SetNetworkAccessWithoutABooleanEnabledIsRefusedBeforeAnyWork) {
  auto host = start_host();
  for (const Json& arguments : {Json::object(), Json{{"enabled", "false"}}, Json{{"enabled", nullptr}}}) {
    const Json result = host->call_tool("set_network_access", arguments, 60s);
    EXPECT_TRUE(test::McpClient::is_error(result)) << arguments.dump() << ": " << result.dump();
    const Json payload = test::McpClient::payload_of(result);
    const std::string text = payload.is_string() ? payload.get<std::string>() : payload.dump();
    EXPECT_EQ(text.rfind("Input validation error: ", 0), 0u) << text;
    EXPECT_NE(text.find("enabled"), std::string::npos) << text;
  }
  // Refused arguments never got as far as the computer.
  expect_status(ok(*host, "runtime_status"), /*attached=*/false, /*network_access=*/true);
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value());
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(StatusToolsTest);

}  // namespace
}  // namespace vc::integration
