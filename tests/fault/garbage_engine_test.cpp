// garbage_engine_test.cpp — the engine socket answers garbage: a proxy on the plugin's engine
// address (engine_fault_proxy.h) relays to the real engine but spoils chosen answers. Each
// spoiled call ends in a clear error naming the engine, the server keeps serving, the next
// call works, and no descriptor is left behind.
#include <memory>
#include <thread>

#include "engine_fault_proxy.h"
#include "engine_test.h"
#include "fault_support.h"
#include "temp_directory.h"

namespace vc::integration {
namespace {

using fault::Fault;
using fault::FaultRule;

class GarbageEngineTest : public EngineTest {
 protected:
  void start(std::vector<FaultRule> rules, std::vector<std::string> extra_args = {}) {
    socket_dir_ = std::make_unique<test::TempDirectory>("vc-fault-proxy");
    proxy_ = std::make_unique<fault::EngineFaultProxy>(socket_dir_->path().string(),
                                                       engine().socket_path, std::move(rules));
    HostOptions options;
    options.default_address = false;
    options.extra_args = {"--" + engine().address_option, proxy_->address()};
    options.extra_args.insert(options.extra_args.end(), extra_args.begin(), extra_args.end());
    host_ = start_host(options);
  }
  void TearDown() override {
    if (host_) close_host(host_);
    proxy_.reset();
    EngineTest::TearDown();
  }

  // A call the proxy spoils: an error result that names the engine's address.
  void expect_clear_error(const Json& arguments) {
    const Json result = call_terminal(*host_, arguments, 120s);
    ASSERT_TRUE(test::McpClient::is_error(result)) << result.dump();
    const std::string error = fault::tool_error(result);
    EXPECT_NE(error.find(proxy_->address()), std::string::npos) << error;
    EXPECT_TRUE(host_->process().running()) << host_->diagnostics();
    EXPECT_TRUE(host_->request("ping", Json::object(), 10s).contains("result"));
  }
  void expect_working() {
    EXPECT_EQ(execute(*host_, {{"command", "echo still-fine"}}, 120s)["stdout"], "still-fine\n");
  }

  std::unique_ptr<test::TempDirectory> socket_dir_;
  std::unique_ptr<fault::EngineFaultProxy> proxy_;
  std::unique_ptr<test::McpClient> host_;
};

TEST_P(GarbageEngineTest, MalformedHttpFromEveryRequestIsAClearErrorEachTimeWithoutLeaks) {
  start({FaultRule{"", "/", Fault::kMalformedStatusLine}});
  expect_clear_error({{"command", "true"}});
  const int descriptors = fault::settled_descriptor_count(host_->pid());
  for (int call = 0; call < 5; ++call) expect_clear_error({{"command", "true"}});
  EXPECT_EQ(fault::settled_descriptor_count(host_->pid()), descriptors);
  EXPECT_GE(proxy_->faults_served(), 6);
}

TEST_P(GarbageEngineTest, ATruncatedChunkedAnswerFailsThatCallOnly) {
  // The computer's inspect, the first thing a call does after the engine check.
  start({FaultRule{"GET", "/containers/" + container_name() + "/json",
                   Fault::kTruncatedChunkedBody, 0, 1}});
  expect_clear_error({{"command", "true"}});
  EXPECT_EQ(proxy_->faults_served(), 1);
  expect_working();
}

TEST_P(GarbageEngineTest, AnAnswerThatIsNotJsonFailsThatCallOnly) {
  start({FaultRule{"GET", "/containers/" + container_name() + "/json", Fault::kBodyNotJson, 0, 1}});
  expect_clear_error({{"command", "true"}});
  expect_working();
}

TEST_P(GarbageEngineTest, AConnectionClosedWithoutAnAnswerFailsThatCallOnly) {
  start({FaultRule{"GET", "/containers/" + container_name() + "/json",
                   Fault::kCloseWithoutAnswer, 0, 1}});
  expect_clear_error({{"command", "true"}});
  expect_working();
}

// The engine's own exec stream (one per command): the exec agent's stream is the next case.
TEST_P(GarbageEngineTest, AnExecStreamCutMidFrameFailsTheCommandAndLeavesNothingRunning) {
  start({}, {"--exec-agent", "off"});
  expect_working();
  const int descriptors = fault::settled_descriptor_count(host_->pid());
  // 13 bytes: the first frame's 8-byte header and 5 bytes of its 16-byte payload.
  proxy_->add_rule(FaultRule{"POST", "/exec/", Fault::kCutAfterBodyBytes, 13, 1});
  const Json result =
      call_terminal(*host_, {{"command", "echo hello-from-exec; exec sleep 1234"}}, 120s);
  ASSERT_TRUE(test::McpClient::is_error(result)) << result.dump();
  EXPECT_NE(fault::tool_error(result).find("output stream"), std::string::npos) << result.dump();
  EXPECT_EQ(proxy_->faults_served(), 1);
  // The command whose output nobody can read any more was killed.
  const auto left = wait_until_process_gone("sleep");
  EXPECT_EQ(std::find(left.begin(), left.end(), "sleep"), left.end());
  expect_working();
  EXPECT_EQ(fault::settled_descriptor_count(host_->pid()), descriptors);
}

// The exec agent's stream cut in the middle of its hello (after the agent was copied in and
// answered once): the channel starts the agent again and the command runs; nothing leaks.
TEST_P(GarbageEngineTest, AnExecAgentStreamCutMidFrameIsStartedAgainAndTheCommandRuns) {
  start({});
  expect_working();
  const int descriptors = fault::settled_descriptor_count(host_->pid());
  // The next agent start is cut 13 bytes into its answer: the 8-byte header of the stream's
  // first frame and 5 bytes of the agent's hello.
  proxy_->add_rule(FaultRule{"POST", "/exec/", Fault::kCutAfterBodyBytes, 13, 1});
  const auto killed = engine().run_cli(
      {"exec", container_name(), "sh", "-c",
       "for p in /proc/[0-9]*; do [ \"$(readlink $p/exe)\" = /.mcp-virtual-computer/vc-exec-agent ] "
       "&& kill -9 ${p#/proc/}; done"});
  ASSERT_TRUE(killed.ok()) << killed.describe({"exec", "kill the agent"});
  std::this_thread::sleep_for(500ms);  // the channel sees its stream end
  EXPECT_EQ(execute(*host_, {{"command", "echo after-the-cut"}}, 120s)["stdout"], "after-the-cut\n");
  EXPECT_EQ(proxy_->faults_served(), 1);
  expect_working();
  EXPECT_EQ(fault::settled_descriptor_count(host_->pid()), descriptors);
}

VC_INSTANTIATE_FOR_ENGINES(GarbageEngineTest);

}  // namespace
}  // namespace vc::integration
