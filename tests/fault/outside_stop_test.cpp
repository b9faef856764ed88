// outside_stop_test.cpp — over HTTP, where one server serves many clients: the computer is
// killed in the middle of a command, or removed from outside, and a client disconnects in the
// middle of a long call. The dying call reports the death as specified (docs/compatibility.md:
// "Sandbox <id> died during command execution"), the server keeps serving everyone else, and
// a command whose client went away does not go on running in the computer.
#include <algorithm>
#include <future>
#include <thread>

#include "engine_test.h"
#include "fault_support.h"
#include "http_host.h"

namespace vc::integration {
namespace {

class OutsideStopTest : public EngineTest {
 protected:
  std::unique_ptr<test::HttpHost> start_http_host(std::vector<std::string> extra = {}) {
    test::HttpHostOptions options;
    options.binary = VC_HOST_BINARY;
    options.args = {"--backend", engine().backend, "--plugin-dir", VC_PLUGIN_DIR,
                    "--state-dir", "@SCRATCH@", "--image", kDebianImage};
    for (const auto& arg : engine().address_args()) options.args.push_back(arg);
    for (auto& arg : extra) options.args.push_back(std::move(arg));
    options.environment = engine().cli_environment;
    options.computer_id = computer_id();
    return std::make_unique<test::HttpHost>(options);
  }

  static Json terminal(int id, const std::string& command) {
    return test::request(id, "tools/call",
                         {{"name", "terminal_execute"}, {"arguments", {{"command", command}}}});
  }
  // The JSON-RPC answer of a POST (the last SSE event, or the JSON body).
  static Json answer_of(const test::HttpReply& reply) {
    const auto events = reply.events();
    return events.empty() ? reply.json() : events.back();
  }
  static std::string error_of(const Json& answer) {
    return answer["result"]["structuredContent"].value("error", "");
  }

  // Another client's session works: initialize, tools/list, ping, the health check.
  void expect_serving_others(const test::HttpHost& host) {
    const std::string other = host.open_session();
    const Json tools = host.post(test::request(2, "tools/list"), other).json();
    EXPECT_FALSE(tools["result"]["tools"].empty()) << tools.dump();
    EXPECT_TRUE(host.post(test::request(3, "ping"), other).json().contains("result"));
    EXPECT_EQ(host.request("GET", "/healthz", {}).status, 200);
  }
};

TEST_P(OutsideStopTest, AKillInTheMiddleOfACommandIsReportedAsTheComputersDeath) {
  auto host = start_http_host();
  const std::string session = host->open_session();
  ASSERT_EQ(answer_of(host->post(terminal(2, "echo alive"), session))["result"]["structuredContent"]
                ["stdout"],
            "alive\n");

  auto running = std::async(std::launch::async, [&] {
    return answer_of(host->post(terminal(3, "sleep 300"), session));
  });
  ASSERT_TRUE(fault::wait_for_process(engine(), container_name(), "sleep"));
  const auto killed = engine().run_cli({"kill", container_name()});
  ASSERT_TRUE(killed.ok()) << killed.describe({"kill", container_name()});

  const Json answer = running.get();
  EXPECT_TRUE(answer["result"].value("isError", false)) << answer.dump();
  EXPECT_NE(error_of(answer).find("died during command execution"), std::string::npos)
      << answer.dump();
  EXPECT_TRUE(host->process().running());
  expect_serving_others(*host);
  // Later calls say so too, at once.
  EXPECT_NE(error_of(answer_of(host->post(terminal(4, "echo again"), session)))
                .find("died during command execution"),
            std::string::npos);
  const auto stopped = host->stop();
  EXPECT_TRUE(stopped.exited && stopped.code == 0) << stopped.describe();
}

TEST_P(OutsideStopTest, AComputerRemovedFromOutsideIsReportedAsDeadAndTheServerServesOn) {
  auto host = start_http_host();
  const std::string session = host->open_session();
  ASSERT_EQ(answer_of(host->post(terminal(2, "echo alive"), session))["result"]["structuredContent"]
                ["stdout"],
            "alive\n");
  const auto removed = engine().run_cli({"rm", "-f", container_name()});
  ASSERT_TRUE(removed.ok()) << removed.describe({"rm", "-f", container_name()});

  std::string error;
  for (int attempt = 0; attempt < 60 && error.find("died") == std::string::npos; ++attempt) {
    std::this_thread::sleep_for(500ms);
    error = error_of(answer_of(host->post(terminal(10 + attempt, "echo after"), session)));
  }
  EXPECT_NE(error.find("died during command execution"), std::string::npos) << error;
  EXPECT_TRUE(host->process().running());
  expect_serving_others(*host);
  // Nothing was recreated behind the user's back.
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value());
  const auto stopped = host->stop();
  EXPECT_TRUE(stopped.exited && stopped.code == 0) << stopped.describe();
}

TEST_P(OutsideStopTest, AClientThatDisconnectsMidCallHasItsCommandKilledAndItsSessionEnds) {
  auto host = start_http_host({"--session-timeout", "3"});
  const std::string session = host->open_session();
  ASSERT_EQ(answer_of(host->post(terminal(2, "echo alive"), session))["result"]["structuredContent"]
                ["stdout"],
            "alive\n");

  // curl gives up after 3 s and closes its connection mid-call.
  const auto gave_up = host->request(
      "POST", "/mcp",
      {"-H", "Accept: application/json, text/event-stream", "-H",
       "Content-Type: application/json", "-H", "Mcp-Session-Id: " + session, "--data-binary",
       terminal(3, "sleep 1234").dump(), "--max-time", "3"},
      30s);
  EXPECT_TRUE(gave_up.events().empty()) << "the call finished: " << gave_up.describe();

  const auto left = wait_until_process_gone("sleep", 30s);
  EXPECT_EQ(std::find(left.begin(), left.end(), "sleep"), left.end())
      << "the abandoned command still runs in the computer";
  // The computer is free for everyone at once (it runs one command at a time).
  const std::string other = host->open_session();
  EXPECT_EQ(answer_of(host->post(terminal(4, "echo next"), other))["result"]["structuredContent"]
                ["stdout"],
            "next\n");
  // The abandoned session has nothing left running, so its idle timeout ends it (watched in
  // the log: a request on it would count as activity and keep it alive).
  const std::string ended = "session " + session + " ended";
  for (int attempt = 0; attempt < 60; ++attempt) {
    if (host->process().stderr_text().find(ended) != std::string::npos) break;
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_NE(host->process().stderr_text().find(ended), std::string::npos)
      << "the abandoned session was never cleaned up";
  EXPECT_EQ(host->post(test::request(5, "ping"), session).status, 404);
  EXPECT_TRUE(host->process().running());
  const auto stopped = host->stop();
  EXPECT_TRUE(stopped.exited && stopped.code == 0) << stopped.describe();
}

VC_INSTANTIATE_FOR_ENGINES(OutsideStopTest);

}  // namespace
}  // namespace vc::integration
