// The session's 2026-07-28 era beside its 2025 one: requests that carry their own envelope
// need no initialize, get resultType, the server's identity and cache hints, are refused with
// the revision's codes, log only when they ask, and listen for list changes; a 2025 session
// on the same object keeps working exactly as before.
#include "mcp/session.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

#include "mcp/protocol_era.h"
#include "mcp_session_doubles.h"

namespace vc::mcp {
namespace {

using doubles::HeldCallsTool;
using doubles::SwitchableToolSet;

class StatelessSessionTest : public ::testing::Test {
 protected:
  StatelessSessionTest() {
    SessionOptions options;
    options.server_version = "9.9.9";
    options.changes = &set_;
    options.instructions = "use the computer";
    session_ = std::make_unique<Session>(std::vector<Tool*>{&held_, &desktop_}, options,
                                         [this](const Json& m, const Json& related) {
                                           sent_.push_back(m);
                                           related_.push_back(related);
                                         });
  }

  static Json envelope(Json capabilities = Json::object(), Json extra = Json::object()) {
    Json meta{{envelope_keys::kProtocolVersion, kStatelessProtocolVersion},
              {envelope_keys::kClientCapabilities, std::move(capabilities)},
              {envelope_keys::kClientInfo, {{"name", "test"}, {"version", "1"}}}};
    for (auto& [key, value] : extra.items()) meta[key] = value;
    return meta;
  }
  // Sends a 2026 request (`meta` as its _meta) and returns everything it produced.
  std::vector<Json> ask_all(const Json& id, const std::string& method, Json params = Json::object(),
                            Json meta = envelope()) {
    sent_.clear();
    related_.clear();
    if (!meta.is_null()) params["_meta"] = std::move(meta);
    session_->receive(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return sent_;
  }
  Json ask(const Json& id, const std::string& method, Json params = Json::object(),
           Json meta = envelope()) {
    auto all = ask_all(id, method, std::move(params), std::move(meta));
    EXPECT_EQ(all.size(), 1u) << method;
    return all.empty() ? Json() : all.back();
  }

  HeldCallsTool held_{"held"};
  HeldCallsTool desktop_{"look_at_screen"};
  SwitchableToolSet set_;
  std::vector<Json> sent_;
  std::vector<Json> related_;
  std::unique_ptr<Session> session_;
};

TEST_F(StatelessSessionTest, DiscoverNeedsNoInitializeAndDescribesTheServer) {
  const Json reply = ask("d1", "server/discover");
  const Json& result = reply["result"];
  EXPECT_EQ(reply["id"], "d1");
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["supportedVersions"], Json::array({"2026-07-28"}));
  EXPECT_EQ(result["capabilities"]["tools"], (Json{{"listChanged", true}}));
  EXPECT_FALSE(result["capabilities"]["resources"].contains("subscribe"));
  EXPECT_EQ(result["instructions"], "use the computer");
  EXPECT_EQ(result["ttlMs"], 3'600'000);
  EXPECT_EQ(result["cacheScope"], "public");
  EXPECT_EQ(result["_meta"][envelope_keys::kServerInfo],
            (Json{{"name", "MCP Virtual Computer"}, {"version", "9.9.9"}}));
  EXPECT_FALSE(session_->initialized()) << "a 2026 request does not start a 2025 session";
}

TEST_F(StatelessSessionTest, ListsCarryResultTypeAndTruthfulCacheHints) {
  const Json tools = ask(1, "tools/list")["result"];
  EXPECT_EQ(tools["resultType"], "complete");
  EXPECT_EQ(tools["tools"].size(), 2u);
  EXPECT_EQ(tools["ttlMs"], 0) << "the tool list follows the desktop: not to be kept";
  EXPECT_EQ(tools["cacheScope"], "public");
  const Json prompts = ask(2, "prompts/list")["result"];
  EXPECT_EQ(prompts["ttlMs"], 3'600'000);
  EXPECT_EQ(ask(3, "resources/list")["result"]["ttlMs"], 0);
  EXPECT_EQ(ask(4, "resources/templates/list")["result"]["cacheScope"], "public");
}

TEST_F(StatelessSessionTest, AMissingOrBrokenEnvelopeIsInvalidParams) {
  // No _meta at all is 2025 traffic: before initialize it is refused as such.
  EXPECT_EQ(ask(1, "tools/list", Json::object(), nullptr)["error"]["code"], -32600);
  Json no_capabilities = envelope();
  no_capabilities.erase(envelope_keys::kClientCapabilities);
  const Json refused = ask(2, "tools/list", Json::object(), no_capabilities);
  EXPECT_EQ(refused["error"]["code"], -32602);
  EXPECT_EQ(refused["id"], 2);
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("clientCapabilities"),
            std::string::npos);
  Json bad_level = envelope(Json::object(), Json{{envelope_keys::kLogLevel, "loud"}});
  EXPECT_EQ(ask(3, "tools/list", Json::object(), bad_level)["error"]["code"], -32602);
  Json no_info = envelope();
  no_info.erase(envelope_keys::kClientInfo);
  EXPECT_EQ(ask(4, "tools/list", Json::object(), no_info)["result"]["resultType"], "complete");
}

TEST_F(StatelessSessionTest, AnUnservedVersionIsRefusedWithTheServedOnes) {
  Json future = envelope();
  future[envelope_keys::kProtocolVersion] = "v999.0.0";
  const Json refused = ask(1, "tools/list", Json::object(), future);
  EXPECT_EQ(refused["error"]["code"], -32022);
  EXPECT_EQ(refused["error"]["data"]["requested"], "v999.0.0");
  EXPECT_EQ(refused["error"]["data"]["supported"], Json::array({"2026-07-28"}));
}

TEST_F(StatelessSessionTest, MethodsTheRevisionRemovedAreNotFound) {
  for (const char* method : {"initialize", "ping", "logging/setLevel", "resources/subscribe",
                             "resources/unsubscribe", "tasks/list", "unknown/method"}) {
    const Json refused = ask(7, method);
    EXPECT_EQ(refused["error"]["code"], -32601) << method;
    EXPECT_EQ(refused["id"], 7) << method;
  }
  EXPECT_FALSE(session_->initialized());
}

TEST_F(StatelessSessionTest, AMissingResourceIsInvalidParamsWithItsUri) {
  const Json refused = ask(1, "resources/read", Json{{"uri", "test://nowhere"}});
  EXPECT_EQ(refused["error"]["code"], -32602);
  EXPECT_EQ(refused["error"]["data"]["uri"], "test://nowhere");
}

TEST_F(StatelessSessionTest, ACallLogsOnlyWhenItsRequestAskedAndProgressGoesToItsRequest) {
  ask_all(1, "tools/call", Json{{"name", "held"}, {"arguments", Json::object()}},
          envelope(Json::object(), Json{{"progressToken", "p"}}));
  ASSERT_EQ(held_.calls.size(), 1u);
  auto quiet = held_.calls.back();
  ask_all(2, "tools/call", Json{{"name", "held"}, {"arguments", Json::object()}},
          envelope(Json{{"elicitation", Json::object()}},
                   Json{{envelope_keys::kLogLevel, "warning"}}));
  ASSERT_EQ(held_.calls.size(), 2u);
  auto chatty = held_.calls.back();

  sent_.clear();
  related_.clear();
  quiet->log(LogLevel::emergency, "never sent: no level asked");
  quiet->report_progress(1, 2, "half");
  chatty->log(LogLevel::info, "below the level asked");
  chatty->log(LogLevel::error, "sent");
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[0]["method"], "notifications/progress");
  EXPECT_EQ(related_[0], 1);
  EXPECT_EQ(sent_[1]["method"], "notifications/message");
  EXPECT_EQ(sent_[1]["params"]["data"], "sent");
  EXPECT_EQ(related_[1], 2);
  // Capabilities are the request's own, never the session's.
  EXPECT_FALSE(quiet->client_supports("elicitation"));
  EXPECT_TRUE(chatty->client_supports("elicitation"));
  bool refused = false;
  chatty->request_client("elicitation/create", Json::object(),
                         [&refused](Expected<Json> answer) { refused = !answer.ok(); });
  EXPECT_TRUE(refused) << "no requests from server to client in the 2026 era";
  EXPECT_EQ(sent_.size(), 2u);

  sent_.clear();
  chatty->finish(ToolResult::from_payload(Json{{"ok", true}}, false));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["result"]["resultType"], "complete");
  EXPECT_TRUE(sent_[0]["result"]["_meta"].contains(envelope_keys::kServerInfo));
  EXPECT_FALSE(sent_[0]["result"].contains("ttlMs")) << "a tool result is no list";
}

TEST_F(StatelessSessionTest, CancelledNotificationStopsA2026Call) {
  ask_all(5, "tools/call", Json{{"name", "held"}, {"arguments", Json::object()}});
  ASSERT_EQ(held_.calls.size(), 1u);
  bool cancelled = false;
  held_.calls[0]->on_cancel([&cancelled] { cancelled = true; });
  sent_.clear();
  session_->receive(Json{{"jsonrpc", "2.0"},
                         {"method", "notifications/cancelled"},
                         {"params", {{"requestId", 5}}}});
  EXPECT_TRUE(cancelled);
  held_.calls[0]->finish(ToolResult::from_payload(Json::object(), false));
  EXPECT_TRUE(sent_.empty()) << "nothing more is sent for a cancelled request";
}

TEST_F(StatelessSessionTest, ListenAcknowledgesWhatItSendsAndTagsEveryChange) {
  const auto opened = ask_all("L", "subscriptions/listen",
                              Json{{"notifications", {{"toolsListChanged", true},
                                                      {"resourceSubscriptions", {"x://y"}}}}});
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened[0]["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(opened[0]["params"]["_meta"][envelope_keys::kSubscriptionId], "L");
  EXPECT_EQ(opened[0]["params"]["notifications"], (Json{{"toolsListChanged", true}}))
      << "resource subscriptions are not offered, so not acknowledged";
  ask_all("P", "subscriptions/listen", Json{{"notifications", {{"promptsListChanged", true}}}});
  EXPECT_EQ(session_->listens_open(), 2u);

  sent_.clear();
  related_.clear();
  set_.hidden.insert("look_at_screen");
  set_.change();
  ASSERT_EQ(sent_.size(), 1u) << "only the tools listener asked for tool changes";
  EXPECT_EQ(sent_[0]["method"], "notifications/tools/list_changed");
  EXPECT_EQ(sent_[0]["params"]["_meta"][envelope_keys::kSubscriptionId], "L");
  EXPECT_EQ(related_[0], "L");
  EXPECT_EQ(ask(9, "tools/list")["result"]["tools"].size(), 1u);

  // The client ends one listen: nothing more for it. The server ends the other with a result.
  session_->receive(Json{{"jsonrpc", "2.0"},
                         {"method", "notifications/cancelled"},
                         {"params", {{"requestId", "L"}}}});
  sent_.clear();
  set_.change();
  EXPECT_TRUE(sent_.empty());
  session_->cancel_all_calls();
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["id"], "P");
  EXPECT_EQ(sent_[0]["result"]["resultType"], "complete");
  EXPECT_EQ(session_->listens_open(), 0u);
}

TEST_F(StatelessSessionTest, A2025SessionBesideItKeepsItsOwnRules) {
  ask_all(1, "server/discover");
  sent_.clear();
  session_->receive(Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "initialize"},
                         {"params", {{"protocolVersion", "2025-11-25"}}}});
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_FALSE(sent_[0]["result"].contains("resultType"));
  EXPECT_TRUE(sent_[0]["result"]["capabilities"]["resources"]["subscribe"]);
  sent_.clear();
  session_->receive(Json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}});
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_FALSE(sent_[0]["result"].contains("ttlMs"));
  EXPECT_FALSE(sent_[0]["result"].contains("resultType"));
  sent_.clear();
  session_->receive(Json{{"jsonrpc", "2.0"}, {"id", 4}, {"method", "resources/read"},
                         {"params", {{"uri", "test://nowhere"}}}});
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["error"]["code"], -32002) << "2025 keeps its own code";
  EXPECT_EQ(ask(5, "ping")["error"]["code"], -32601) << "2026 still has no ping";
}

TEST_F(StatelessSessionTest, AToolAsksWithInputRequiredAndGetsItsSealedStateBack) {
  ask_all(1, "tools/call", Json{{"name", "held"}, {"arguments", {{"n", 1}}}},
          envelope(Json{{"elicitation", Json::object()}}));
  ASSERT_EQ(held_.calls.size(), 1u);
  EXPECT_TRUE(held_.calls[0]->asks_with_input_required());
  EXPECT_TRUE(held_.calls[0]->input_responses().is_null());
  sent_.clear();
  held_.calls[0]->finish(ToolResult::input_required(
      Json{{"confirm", {{"method", "elicitation/create"}, {"params", {{"message", "Sure?"}}}}}},
      Json{{"step", "confirm"}}));
  ASSERT_EQ(sent_.size(), 1u);
  const Json first = sent_[0]["result"];
  EXPECT_EQ(first["resultType"], "input_required");
  EXPECT_EQ(first["inputRequests"]["confirm"]["method"], "elicitation/create");
  ASSERT_TRUE(first["requestState"].is_string());
  EXPECT_FALSE(first.contains("content"));
  EXPECT_FALSE(first.contains("ttlMs"));

  // The retry: answers and the state as given; the tool sees both.
  const Json answers{{"confirm", {{"action", "accept"}, {"content", {{"ok", true}}}}}};
  ask_all(2, "tools/call",
          Json{{"name", "held"}, {"arguments", {{"n", 1}}}, {"inputResponses", answers},
               {"requestState", first["requestState"]}});
  ASSERT_EQ(held_.calls.size(), 2u);
  EXPECT_EQ(held_.calls[1]->input_responses(), answers);
  EXPECT_EQ(held_.calls[1]->request_state(), (Json{{"step", "confirm"}}));

  // Tampered, or moved to other arguments: refused before the tool runs.
  const std::string state = first["requestState"].get<std::string>();
  for (const Json& params :
       {Json{{"name", "held"}, {"arguments", {{"n", 1}}}, {"requestState", state + "-TAMPERED"}},
        Json{{"name", "held"}, {"arguments", {{"n", 2}}}, {"requestState", state}},
        Json{{"name", "held"}, {"arguments", {{"n", 1}}}, {"requestState", 5}},
        Json{{"name", "held"}, {"arguments", {{"n", 1}}}, {"inputResponses", {{"confirm", 12345}}}},
        Json{{"name", "held"}, {"arguments", {{"n", 1}}}, {"inputResponses", "yes"}}}) {
    const Json refused = ask(3, "tools/call", params);
    EXPECT_EQ(refused["error"]["code"], -32602) << params.dump();
  }
  EXPECT_EQ(held_.calls.size(), 2u) << "no refused round reached the tool";
}

TEST_F(StatelessSessionTest, AMissingCapabilityIsTheRevisionsError) {
  ask_all(1, "tools/call", Json{{"name", "held"}, {"arguments", Json::object()}});
  ASSERT_EQ(held_.calls.size(), 1u);
  sent_.clear();
  held_.calls[0]->finish(ToolResult::missing_capability(Json{{"sampling", Json::object()}}));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["error"]["code"], -32021);
  EXPECT_EQ(sent_[0]["error"]["data"]["requiredCapabilities"], (Json{{"sampling", Json::object()}}));
}

TEST_F(StatelessSessionTest, A2025CallCannotAnswerWithInputRequired) {
  session_->receive(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                         {"params", {{"protocolVersion", "2025-11-25"}}}});
  session_->receive(Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                         {"params", {{"name", "held"}, {"arguments", Json::object()}}}});
  ASSERT_EQ(held_.calls.size(), 1u);
  EXPECT_FALSE(held_.calls[0]->asks_with_input_required());
  sent_.clear();
  held_.calls[0]->finish(ToolResult::input_required(Json{{"q", Json::object()}}));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["result"]["isError"], true);
  EXPECT_FALSE(sent_[0]["result"].contains("resultType"));
}

}  // namespace
}  // namespace vc::mcp
