// http_stateless_test.cpp — the 2026-07-28 revision on /mcp beside the 2025 sessions: requests
// that carry their own envelope and headers, the revision's refusals and statuses, a command
// with progress on its own stream, a closed stream that kills the command, and listen.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "process_http_host.h"

namespace vc::http_test {
namespace {

constexpr const char* kVersion = "2026-07-28";

Json enveloped(const Json& id, const std::string& method, Json params = Json::object(),
               Json capabilities = Json::object()) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", kVersion},
                     {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)},
                     {"io.modelcontextprotocol/clientInfo", {{"name", "http-test"}, {"version", "1"}}}};
  return request(id, method, std::move(params));
}

// The headers the revision asks for, from the message itself.
std::vector<std::string> headers_of(const Json& message) {
  std::vector<std::string> headers = {std::string("MCP-Protocol-Version: ") + kVersion,
                                      "Mcp-Method: " + message["method"].get<std::string>()};
  const Json& params = message["params"];
  if (params.contains("name")) headers.push_back("Mcp-Name: " + params["name"].get<std::string>());
  if (params.contains("uri")) headers.push_back("Mcp-Name: " + params["uri"].get<std::string>());
  return headers;
}

HttpReply post(const HttpHost& host, const Json& message) {
  return host.post(message, std::nullopt, headers_of(message));
}

TEST(HttpStateless, DiscoverAndListWithoutASession) {
  HttpHost host;
  const HttpReply discovered = post(host, enveloped("server-discover-probe-1", "server/discover"));
  ASSERT_EQ(discovered.status, 200) << discovered.describe();
  EXPECT_FALSE(discovered.header("mcp-session-id")) << "no session in this era";
  const Json result = discovered.json()["result"];
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["supportedVersions"], Json::array({kVersion}));
  EXPECT_TRUE(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

  const HttpReply tools = post(host, enveloped(2, "tools/list"));
  ASSERT_EQ(tools.status, 200) << tools.describe();
  const Json listed = tools.json()["result"];
  EXPECT_EQ(listed["cacheScope"], "public");
  EXPECT_TRUE(listed["ttlMs"].is_number_integer());
  bool has_terminal = false;
  for (const Json& tool : listed["tools"]) has_terminal |= tool["name"] == "terminal_execute";
  EXPECT_TRUE(has_terminal) << tools.describe();
}

TEST(HttpStateless, RefusalsFollowTheRevisionsLadder) {
  HttpHost host;
  // 1. the header says 2026, the envelope is incomplete: -32602, 400, id echoed.
  Json incomplete = enveloped(1, "tools/list");
  incomplete["params"]["_meta"].erase("io.modelcontextprotocol/clientCapabilities");
  const HttpReply invalid = host.post(incomplete, std::nullopt, headers_of(incomplete));
  EXPECT_EQ(invalid.status, 400) << invalid.describe();
  EXPECT_EQ(invalid.json()["error"]["code"], -32602);
  EXPECT_EQ(invalid.json()["id"], 1);
  // 2. header and body disagree: -32020, even when the body's version is one nobody serves.
  Json future = enveloped(2, "tools/list");
  future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "v999.0.0";
  const HttpReply mismatch = host.post(future, std::nullopt, headers_of(future));
  EXPECT_EQ(mismatch.status, 400) << mismatch.describe();
  EXPECT_EQ(mismatch.json()["error"]["code"], -32020);
  const Json call = enveloped(3, "tools/call", {{"name", "terminal_execute"},
                                                {"arguments", {{"command", "true"}}}});
  const HttpReply wrong_name = host.post(
      call, std::nullopt,
      {std::string("MCP-Protocol-Version: ") + kVersion, "Mcp-Method: tools/call", "Mcp-Name: other"});
  EXPECT_EQ(wrong_name.json()["error"]["code"], -32020) << wrong_name.describe();
  // 3. an unserved version named in both: -32022 with what is served.
  const HttpReply unserved = host.post(future, std::nullopt,
                                       {"MCP-Protocol-Version: v999.0.0", "Mcp-Method: tools/list"});
  EXPECT_EQ(unserved.status, 400) << unserved.describe();
  EXPECT_EQ(unserved.json()["error"]["code"], -32022);
  EXPECT_EQ(unserved.json()["error"]["data"]["requested"], "v999.0.0");
  // 4. methods the revision removed: 404 and -32601.
  for (const char* method : {"initialize", "ping", "logging/setLevel", "resources/subscribe"}) {
    const HttpReply removed = post(host, enveloped(4, method));
    EXPECT_EQ(removed.status, 404) << method << ": " << removed.describe();
    EXPECT_EQ(removed.json()["error"]["code"], -32601) << method;
  }
  // A handler's own error stays in-band: unknown tool.
  const HttpReply unknown = post(host, enveloped(5, "tools/call", {{"name", "nope"}}));
  EXPECT_EQ(unknown.status, 200) << unknown.describe();
  EXPECT_EQ(unknown.json()["error"]["code"], -32602);
  // Notifications of this era are taken and dropped.
  Json cancelled{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                 {"params", {{"requestId", 9}, {"_meta", enveloped(0, "x")["params"]["_meta"]}}}};
  EXPECT_EQ(host.post(cancelled, std::nullopt, {std::string("MCP-Protocol-Version: ") + kVersion,
                                                "Mcp-Method: notifications/cancelled"})
                .status,
            202);
}

TEST(HttpStateless, ACommandRunsWithProgressOnItsOwnStream) {
  HttpHost host;
  Json call = enveloped(7, "tools/call", {{"name", "terminal_execute"},
                                          {"arguments", {{"command", "echo from 2026"}}}});
  call["params"]["_meta"]["progressToken"] = "tok";
  const HttpReply reply = post(host, call);
  ASSERT_EQ(reply.status, 200) << reply.describe();
  EXPECT_EQ(reply.header("content-type"), "text/event-stream") << reply.describe();
  EXPECT_EQ(reply.body.find("id: "), std::string::npos) << "no event ids in this era";
  const auto events = reply.events();
  ASSERT_FALSE(events.empty()) << reply.describe();
  const Json& result = events.back()["result"];
  EXPECT_EQ(events.back()["id"], 7);
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["structuredContent"]["stdout"], "from 2026\n") << reply.describe();
  bool progressed = false;
  for (const Json& event : events) {
    progressed |= event.value("method", "") == "notifications/progress" &&
                  event["params"]["progressToken"] == "tok";
  }
  EXPECT_TRUE(progressed) << reply.describe();
}

// Prints "none" once no `sleep <duration>` runs any more (the kill lands within milliseconds;
// the loop gives it up to 10 s), "still running" otherwise. The duration is this test's own, so
// that no other command of the machine matches.
std::string gone_within_10s(const std::string& duration) {
  return "for i in $(seq 50); do pgrep -f 'sleep " + duration +
         "$' >/dev/null || { echo none; exit 0; }; sleep 0.2; done; echo still running";
}

TEST(HttpStateless, ClosingTheStreamKillsTheCommand) {
  HttpHost host;
  const std::string duration = "30." + std::to_string(getpid());
  const Json call = enveloped(8, "tools/call",
                              {{"name", "terminal_execute"},
                               {"arguments", {{"command", "sleep " + duration + "; echo done"},
                                              {"timeout", 60}}}});
  // curl gives up after 2 s: the client closed its stream.
  std::vector<std::string> args = {"-m", "2", "-H", "Accept: application/json, text/event-stream",
                                   "-H", "Content-Type: application/json", "--data-binary",
                                   call.dump()};
  for (const auto& header : headers_of(call)) {
    args.push_back("-H");
    args.push_back(header);
  }
  host.request("POST", "/mcp", args, 10s);
  // The next command of another request runs at once: the computer is free again.
  const auto started = std::chrono::steady_clock::now();
  const HttpReply next = post(host, enveloped(9, "tools/call",
                                              {{"name", "terminal_execute"},
                                               {"arguments", {{"command", gone_within_10s(duration)}}}}));
  const auto waited = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(next.status, 200) << next.describe();
  const auto events = next.events();
  const Json answer = events.empty() ? next.json() : events.back();
  EXPECT_EQ(answer["result"]["structuredContent"]["stdout"], "none\n") << next.describe();
  EXPECT_LT(waited, 20s);
  EXPECT_NE(host.process().stderr_text().find("client cancelled request 8"), std::string::npos)
      << host.process().stderr_text();
}

// Counts the SSE comments that keep an idle stream open in `body`.
size_t keepalives_in(const std::string& body) {
  size_t count = 0;
  for (size_t at = body.find(": keep-alive\n\n"); at != std::string::npos;
       at = body.find(": keep-alive\n\n", at + 1)) {
    ++count;
  }
  return count;
}

TEST(HttpStateless, IdleStreamsGetKeepAliveCommentsThroughProxies) {
  HttpHost host({"--sse-keepalive", "1"});
  const Json listen = enveloped("L", "subscriptions/listen",
                                {{"notifications", {{"toolsListChanged", true}}}});
  std::vector<std::string> args = {"-H", "Accept: application/json, text/event-stream", "-H",
                                   "Content-Type: application/json", "--data-binary", listen.dump()};
  for (const auto& header : headers_of(listen)) {
    args.push_back("-H");
    args.push_back(header);
  }
  // Nothing changes for 3.5 s: the stream carries its acknowledgement, then only comments.
  const HttpReply listened = host.request("POST", "/mcp", args, 3500ms);
  EXPECT_EQ(listened.status, 200) << listened.describe();
  EXPECT_NE(listened.body.find("notifications/subscriptions/acknowledged"), std::string::npos)
      << listened.describe();
  EXPECT_GE(keepalives_in(listened.body), 2u) << listened.describe();

  // A 2025 session's GET stream gets them too.
  const std::string session = host.open_session();
  const HttpReply stream = host.request(
      "GET", "/mcp", {"-H", "Accept: text/event-stream", "-H", "Mcp-Session-Id: " + session}, 2500ms);
  EXPECT_GE(keepalives_in(stream.body), 1u) << stream.describe();

  // Off with 0: a listen carries nothing but its acknowledgement.
  HttpHost quiet({"--sse-keepalive", "0"});
  const HttpReply silent = quiet.request("POST", "/mcp", args, 2500ms);
  EXPECT_EQ(keepalives_in(silent.body), 0u) << silent.describe();
}

TEST(HttpStateless, TheSameIdFromTwoClientsAtOnceIsNoConflict) {
  HttpHost host;
  // Two stateless requests with id 1 run side by side: they belong to no shared session.
  const Json slow = enveloped(1, "tools/call", {{"name", "terminal_execute"},
                                                {"arguments", {{"command", "sleep 1; echo a"}}}});
  HttpReply first;
  std::thread other([&] { first = post(host, slow); });
  std::this_thread::sleep_for(200ms);
  const HttpReply second = post(host, enveloped(1, "tools/list"));
  other.join();
  EXPECT_EQ(second.status, 200) << second.describe();
  EXPECT_TRUE(second.json()["result"]["tools"].is_array()) << second.describe();
  const auto events = first.events();
  ASSERT_FALSE(events.empty()) << first.describe();
  EXPECT_EQ(events.back()["result"]["structuredContent"]["stdout"], "a\n");
}

TEST(HttpStateless, A2025SessionKeepsWorkingBesideIt) {
  HttpHost host;
  const std::string session = host.open_session();
  EXPECT_EQ(post(host, enveloped(1, "server/discover")).status, 200);
  const HttpReply pong = host.post(request(2, "ping"), session);
  EXPECT_EQ(pong.json(), Json::parse(R"({"jsonrpc":"2.0","id":2,"result":{}})"));
  const HttpReply listed = host.post(request(3, "tools/list"), session);
  EXPECT_FALSE(listed.json()["result"].contains("resultType")) << listed.describe();
}

}  // namespace
}  // namespace vc::http_test
