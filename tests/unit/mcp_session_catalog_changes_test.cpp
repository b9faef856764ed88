// A session given a changing tool set: hidden tools are neither listed nor callable, the
// capabilities say listChanged, and every change reaches the client as both list_changed
// notifications (only once the session is initialized).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "mcp/session.h"
#include "mcp_session_doubles.h"

namespace vc::mcp {
namespace {

class NamedTool : public Tool {
 public:
  explicit NamedTool(std::string name) {
    definition_.name = std::move(name);
    definition_.description = "answers ok";
    definition_.input_schema = Json{{"type", "object"}};
  }
  const ToolDefinition& definition() const override { return definition_; }
  void call(std::shared_ptr<ToolCall> call) override {
    call->finish(ToolResult::from_payload(Json{{"ok", true}}, false));
  }

 private:
  ToolDefinition definition_;
};

using SwitchableSet = doubles::SwitchableToolSet;

class CatalogChangesTest : public ::testing::Test {
 protected:
  CatalogChangesTest() {
    SessionOptions options;
    options.changes = &set_;
    session_ = std::make_unique<Session>(std::vector<Tool*>{&plain_, &desktop_}, options,
                                         [this](const Json& m, const Json&) { sent_.push_back(m); });
  }

  Json request(int id, const std::string& method, Json params = Json::object()) {
    session_->receive(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    for (const Json& message : sent_) {
      if (message.value("id", Json()) == id) return message;
    }
    return Json();
  }
  int notifications(const std::string& method) const {
    int count = 0;
    for (const Json& message : sent_) count += message.value("method", "") == method ? 1 : 0;
    return count;
  }
  std::vector<std::string> listed() {
    std::vector<std::string> names;
    const Json answer = request(next_id_++, "tools/list");
    for (const Json& tool : answer["result"]["tools"]) {
      names.push_back(tool["name"]);
    }
    return names;
  }

  NamedTool plain_{"terminal_execute"};
  NamedTool desktop_{"click"};
  SwitchableSet set_;
  std::vector<Json> sent_;
  std::unique_ptr<Session> session_;
  int next_id_ = 100;
};

TEST_F(CatalogChangesTest, ChangesAreAnnouncedOnlyToAnInitializedSession) {
  set_.change();
  EXPECT_EQ(notifications("notifications/tools/list_changed"), 0);
  Json init = request(1, "initialize", Json{{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()}});
  EXPECT_EQ(init["result"]["capabilities"]["tools"]["listChanged"], true);
  EXPECT_EQ(init["result"]["capabilities"]["resources"]["listChanged"], true);
  set_.change();
  EXPECT_EQ(notifications("notifications/tools/list_changed"), 1);
  EXPECT_EQ(notifications("notifications/resources/list_changed"), 1);
}

TEST_F(CatalogChangesTest, HiddenToolsAreNeitherListedNorCallable) {
  request(1, "initialize", Json{{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()}});
  EXPECT_EQ(listed(), (std::vector<std::string>{"terminal_execute", "click"}));
  set_.hidden = {"click"};
  set_.change();
  EXPECT_EQ(listed(), (std::vector<std::string>{"terminal_execute"}));
  Json refused = request(2, "tools/call", Json{{"name", "click"}, {"arguments", Json::object()}});
  EXPECT_EQ(refused["error"]["message"], "Unknown tool: click");
  set_.hidden.clear();
  set_.change();
  Json answered = request(3, "tools/call", Json{{"name", "click"}, {"arguments", Json::object()}});
  EXPECT_EQ(answered["result"]["isError"], false);
}

TEST_F(CatalogChangesTest, ASessionGoneStopsListening) {
  session_.reset();
  set_.change();  // must not reach the destroyed session
  EXPECT_TRUE(sent_.empty());
}

}  // namespace
}  // namespace vc::mcp
