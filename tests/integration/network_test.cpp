// network_test.cpp — network access off really cuts the computer off, and on gives it back
// (headless; docs/compatibility.md, "Network and desktop switches"). The only address ever
// contacted is a listener the test started in a
// container of its own on the engine's bridge network.
#include "engine_test.h"

namespace vc::integration {
namespace {

class NetworkTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    listener_ = start_listener(kBanner);
    ASSERT_FALSE(listener_.empty());
  }

  // Connects from inside the computer to the listener with bash's /dev/tcp, bounded by timeout(1).
  Json connect_from_computer(test::McpClient& host) {
    return execute(host,
                   {{"command", "timeout 5 bash -c 'exec 3<>/dev/tcp/" + listener_ +
                                    "/8080 && cat <&3'"},
                    {"timeout", 30}});
  }

  // Without network the computer has only loopback: the connection fails at once because no
  // route exists (not because of a slow timeout or a missing tool).
  static void expect_unreachable(const Json& payload) {
    EXPECT_NE(payload["exit_code"], 0) << payload.dump();
    EXPECT_EQ(payload["stdout"], "") << payload.dump();
    EXPECT_NE(payload["stderr"].get<std::string>().find("Network is unreachable"), std::string::npos)
        << payload.dump();
  }

  static constexpr const char* kBanner = "vc-listener-banner";
  std::string listener_;
};

TEST_P(NetworkTest, WithNetworkAccessTheListenerIsReachable) {
  auto host = start_host();
  const Json payload = connect_from_computer(*host);
  EXPECT_EQ(payload["exit_code"], 0) << payload.dump();
  EXPECT_EQ(payload["stdout"], std::string(kBanner) + "\n");
  EXPECT_EQ(payload["network_access"], true);
  close_host(host);
}

TEST_P(NetworkTest, NoNetworkFlagMakesTheListenerUnreachable) {
  HostOptions options;
  options.extra_args = {"--no-network"};
  auto host = start_host(options);
  const Json payload = connect_from_computer(*host);
  expect_unreachable(payload);
  EXPECT_EQ(payload["network_access"], false);
  close_host(host);
}

TEST_P(NetworkTest, NetworkAccessVariableFalseMakesTheListenerUnreachable) {
  HostOptions options;
  options.environment = {{"NETWORK_ACCESS", "false"}};
  auto host = start_host(options);
  expect_unreachable(connect_from_computer(*host));
  close_host(host);
}

TEST_P(NetworkTest, AttachAppliesTheConfiguredNetworkStateBothWays) {
  // Created without network, then the host restarts with network on, then off again: the same
  // container is disconnected from and connected to the bridge.
  HostOptions off;
  off.extra_args = {"--no-network"};
  auto host = start_host(off);
  expect_unreachable(connect_from_computer(*host));
  close_host(host);

  host = start_host();
  const Json on = connect_from_computer(*host);
  EXPECT_EQ(on["stdout"], std::string(kBanner) + "\n") << on.dump();
  EXPECT_EQ(on["network_access"], true);
  close_host(host);

  host = start_host(off);
  const Json off_again = connect_from_computer(*host);
  expect_unreachable(off_again);
  EXPECT_EQ(off_again["network_access"], false);
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(NetworkTest);

}  // namespace
}  // namespace vc::integration
