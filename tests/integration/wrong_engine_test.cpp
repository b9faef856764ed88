// wrong_engine_test.cpp — each backend refuses the other kind of engine with a message that
// names the right backend: its quirks would not hold there (Docker's `none` network, Podman's
// exit codes), so "mostly works" is not good enough.
#include "engine_test.h"

namespace vc::integration {
namespace {

class WrongEngineTest : public EngineTest {};

TEST_P(WrongEngineTest, TheOtherEnginesSocketIsRefusedWithTheRightBackendNamed) {
  const test::ContainerEngine& other =
      engine().name == "docker" ? test::podman_engine() : test::docker_engine();
  if (!other.socket_answers()) GTEST_SKIP() << other.socket_path << " does not answer";

  HostOptions options;
  options.default_address = false;
  options.extra_args = {"--" + engine().address_option, other.address()};
  auto host = start_host(options);
  const Json result = call_terminal(*host, {{"command", "true"}}, 60s);
  ASSERT_TRUE(test::McpClient::is_error(result)) << result.dump();
  const std::string error = test::McpClient::payload_of(result).value("error", "");
  const std::string found = other.name == "podman" ? "is Podman " : "is Docker ";
  EXPECT_NE(error.find("The engine at " + other.address() + " " + found), std::string::npos)
      << error;
  EXPECT_NE(error.find("Use --backend " + other.name), std::string::npos) << error;
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value());
  EXPECT_FALSE(other.inspect_container(container_name()).has_value());
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(WrongEngineTest);

}  // namespace
}  // namespace vc::integration
