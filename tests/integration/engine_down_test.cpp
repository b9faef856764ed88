// engine_down_test.cpp — no engine at the configured address: the tool call says so clearly
// (an isError result; docs/compatibility.md, "Getting the computer") and the host keeps serving.
#include "engine_test.h"

namespace vc::integration {
namespace {

class EngineDownTest : public EngineTest {};

TEST_P(EngineDownTest, DeadSocketGivesTheClearErrorAndTheHostKeepsServing) {
  const std::string address = "unix:///tmp/nonexistent.sock";
  HostOptions options;
  options.default_address = false;
  options.extra_args = {"--" + engine().address_option, address};
  auto host = start_host(options);

  for (int attempt = 0; attempt < 2; ++attempt) {  // a failure is not cached: the next call retries
    const Json result = call_terminal(*host, {{"command", "true"}}, 60s);
    EXPECT_TRUE(test::McpClient::is_error(result)) << result.dump();
    const std::string error = test::McpClient::payload_of(result).value("error", "");
    EXPECT_EQ(error.rfind(engine().unreachable_prefix + address + ": ", 0), 0u) << error;
    EXPECT_TRUE(error.size() >= engine().unreachable_suffix.size() &&
                error.compare(error.size() - engine().unreachable_suffix.size(),
                              std::string::npos, engine().unreachable_suffix) == 0)
        << error;
  }

  const Json pong = host->request("ping", Json::object(), 10s);
  EXPECT_TRUE(pong.contains("result")) << pong.dump();
  EXPECT_TRUE(host->process().running());
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(EngineDownTest);

}  // namespace
}  // namespace vc::integration
