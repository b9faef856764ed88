// engine_outage_test.cpp — the engine goes away under a serving host (stdio, the transport
// where losing the server costs the client most): restarted while a command runs, or stopped
// and left down for a while. What the user must see: a clear error naming the engine for the
// calls it spoils, the server still answering, the computer and its files intact, and the next
// call working as soon as the engine is back — with no restart of the server. Docker stops its
// containers when dockerd exits; Podman's containers outlive its API service: both are covered.
#include "engine_control.h"
#include "engine_test.h"
#include "fault_support.h"

namespace vc::integration {
namespace {

class EngineOutageTest : public EngineTest {
 protected:
  // A file in the computer that must survive the outage.
  void leave_a_file(test::McpClient& host) {
    execute(host, {{"command", "echo kept-through-the-outage > /workspace/kept.txt"}});
  }
  void expect_the_file(test::McpClient& host) {
    const Json payload = execute(host, {{"command", "cat /workspace/kept.txt"}});
    EXPECT_EQ(payload["stdout"], "kept-through-the-outage\n") << payload.dump();
  }
  void expect_serving(test::McpClient& host) {
    EXPECT_TRUE(host.request("ping", Json::object(), 10s).contains("result"));
    EXPECT_FALSE(host.list_tools(10s)["tools"].empty());
    EXPECT_TRUE(host.process().running()) << host.diagnostics();
  }
};

TEST_P(EngineOutageTest, RestartWhileACommandRunsIsAnEngineErrorNotADeath) {
  auto host = start_host();
  leave_a_file(*host);
  const Json call = host->send_request(
      "tools/call", Json{{"name", "terminal_execute"},
                         {"arguments", {{"command", "sleep 300"}, {"timeout", 600}}}});
  ASSERT_TRUE(fault::wait_for_process(engine(), container_name(), "sleep"))
      << "the command never started";

  {
    fault::EngineOutage outage(engine());
    ASSERT_EQ(outage.stop_error(), "");
    const Json answer = host->await_response(call, 180s);
    const Json& result = answer["result"];
    ASSERT_TRUE(test::McpClient::is_error(result)) << answer.dump();
    const std::string error = fault::tool_error(result);
    EXPECT_NE(error.find(engine().address()), std::string::npos) << error;
    EXPECT_EQ(error.find("died"), std::string::npos) << error;
    ASSERT_EQ(outage.restore(), "");
  }

  // An engine restart is not the computer's death: the server is still there over stdio, and
  // the next call brings the computer back with its files.
  expect_serving(*host);
  expect_the_file(*host);
  EXPECT_EQ(host->stderr_text().find("shutting down: the computer died"), std::string::npos)
      << host->diagnostics();
  close_host(host);
}

TEST_P(EngineOutageTest, AnEngineThatStaysDownGetsClearErrorsAndTheServerRecoversByItself) {
  auto host = start_host();
  leave_a_file(*host);

  {
    fault::EngineOutage outage(engine());
    ASSERT_EQ(outage.stop_error(), "");
    for (int attempt = 0; attempt < 3; ++attempt) {  // a failure is not cached: each call retries
      const Json result = call_terminal(*host, {{"command", "true"}}, 60s);
      ASSERT_TRUE(test::McpClient::is_error(result)) << result.dump();
      const std::string error = fault::tool_error(result);
      EXPECT_EQ(error.rfind(engine().unreachable_prefix + engine().address() + ": ", 0), 0u)
          << error;
      EXPECT_NE(error.find(engine().unreachable_suffix), std::string::npos) << error;
    }
    expect_serving(*host);
    const Json status = test::McpClient::payload_of(host->call_tool("runtime_status", Json::object(), 10s));
    EXPECT_EQ(status["computer_attached"], false) << status.dump();
    ASSERT_TRUE(status["runtime_error"].is_string()) << status.dump();
    EXPECT_NE(status["runtime_error"].get<std::string>().find(engine().address()),
              std::string::npos)
        << status.dump();
    ASSERT_EQ(outage.restore(), "");
  }

  // Nothing to do but call again: the first call after the engine is back works.
  expect_the_file(*host);
  const Json status = test::McpClient::payload_of(host->call_tool("runtime_status", Json::object(), 10s));
  EXPECT_EQ(status["computer_attached"], true) << status.dump();
  EXPECT_TRUE(status["runtime_error"].is_null()) << status.dump();
  expect_serving(*host);
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(EngineOutageTest);

}  // namespace
}  // namespace vc::integration
