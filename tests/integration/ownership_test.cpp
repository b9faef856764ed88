// ownership_test.cpp — a container that has the computer's name but not our labels belongs to
// someone else: the host refuses to use it and never touches it (docs/compatibility.md,
// "Names and labels").
#include "engine_test.h"

namespace vc::integration {
namespace {

class OwnershipTest : public EngineTest {};

TEST_P(OwnershipTest, ForeignContainerWithOurNameIsRefusedAndLeftAlone) {
  const std::vector<std::string> run = {"run", "-d", "--name", container_name(), "--label",
                                        kTestLabel, kBusyboxImage, "sleep", "1000"};
  const auto started = engine().run_cli(run);
  ASSERT_TRUE(started.ok()) << started.describe(run);
  const auto before = engine().inspect_container(container_name());
  ASSERT_TRUE(before.has_value());

  auto host = start_host();
  const Json result = call_terminal(*host, {{"command", "echo must-not-run"}});
  EXPECT_TRUE(test::McpClient::is_error(result)) << result.dump();
  const std::string error = test::McpClient::payload_of(result).value("error", "");
  EXPECT_NE(error.find("already in use by a container not owned by this server"), std::string::npos)
      << error;
  EXPECT_NE(error.find(container_name()), std::string::npos) << error;
  close_host(host);

  const auto after = engine().inspect_container(container_name());
  ASSERT_TRUE(after.has_value()) << "the foreign container was removed";
  EXPECT_EQ(after->value("Id", ""), before->value("Id", ""));
  EXPECT_EQ(after->value(Json::json_pointer("/State/Running"), false), true);
  EXPECT_EQ(after->value(Json::json_pointer("/State/StartedAt"), ""),
            before->value(Json::json_pointer("/State/StartedAt"), ""))
      << "the foreign container was restarted";
  EXPECT_EQ(after->value(Json::json_pointer("/Config/Labels"), Json::object()),
            before->value(Json::json_pointer("/Config/Labels"), Json::object()));
  EXPECT_EQ(after->value(Json::json_pointer("/NetworkSettings/Networks"), Json::object()).size(),
            before->value(Json::json_pointer("/NetworkSettings/Networks"), Json::object()).size())
      << "the foreign container's networks were changed";
}

VC_INSTANTIATE_FOR_ENGINES(OwnershipTest);

}  // namespace
}  // namespace vc::integration
