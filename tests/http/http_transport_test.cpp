// http_transport_test.cpp — Streamable HTTP: sessions, JSON and SSE answers, the GET stream,
// DELETE, the service routes (HEAD included), and the session timeout.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "process_http_host.h"

namespace vc::http_test {
namespace {

Json call(int id, const std::string& command, std::optional<std::string> progress_token = {}) {
  Json params{{"name", "terminal_execute"}, {"arguments", {{"command", command}}}};
  if (progress_token) params["_meta"] = {{"progressToken", *progress_token}};
  return request(id, "tools/call", params);
}

TEST(HttpTransport, InitializeCreatesASessionAndAnswersWithJson) {
  HttpHost host;
  const HttpReply reply = host.post(initialize_request());
  ASSERT_EQ(reply.status, 200) << reply.describe();
  EXPECT_EQ(reply.header("content-type"), "application/json");
  const auto session = reply.header("mcp-session-id");
  ASSERT_TRUE(session);
  EXPECT_EQ(session->size(), 32u);
  EXPECT_EQ(session->find_first_not_of("0123456789abcdef"), std::string::npos) << *session;
  EXPECT_EQ(reply.json()["result"]["protocolVersion"], "2025-11-25") << reply.describe();

  // A second initialize makes a different session.
  EXPECT_NE(host.open_session(), *session);
}

TEST(HttpTransport, NotificationsGet202AndRequestsNeedTheSession) {
  HttpHost host;
  const std::string session = host.open_session();
  EXPECT_EQ(host.post(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, session)
                .status,
            202);

  const HttpReply missing = host.post(request(2, "ping"));
  EXPECT_EQ(missing.status, 400) << missing.describe();
  EXPECT_EQ(missing.json()["error"]["message"], "Bad Request: Missing session ID");

  const HttpReply unknown = host.post(request(3, "ping"), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(unknown.status, 404) << unknown.describe();

  const HttpReply pong = host.post(request(4, "ping"), session);
  EXPECT_EQ(pong.status, 200);
  EXPECT_EQ(pong.json(), Json::parse(R"({"jsonrpc":"2.0","id":4,"result":{}})"));
}

TEST(HttpTransport, ToolCallStreamsProgressThenTheResult) {
  HttpHost host;
  const std::string session = host.open_session();
  const HttpReply reply = host.post(call(5, "echo streamed; echo more", "tok"), session);
  ASSERT_EQ(reply.status, 200) << reply.describe();
  EXPECT_EQ(reply.header("content-type"), "text/event-stream");
  const auto events = reply.events();
  ASSERT_GE(events.size(), 2u) << reply.describe();
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    EXPECT_EQ(events[i]["method"], "notifications/progress") << events[i].dump();
    EXPECT_EQ(events[i]["params"]["progressToken"], "tok");
  }
  const Json& result = events.back();
  EXPECT_EQ(result["id"], 5);
  EXPECT_EQ(result["result"]["structuredContent"]["stdout"], "streamed\nmore\n") << result.dump();
  EXPECT_EQ(result["result"]["isError"], false);
}

TEST(HttpTransport, ConcurrentCallsOfManySessionsGetTheirOwnOutput) {
  HttpHost host;
  std::vector<std::string> sessions;
  for (int i = 0; i < 4; ++i) sessions.push_back(host.open_session());
  std::vector<HttpReply> replies(sessions.size());
  std::vector<std::thread> clients;
  for (size_t i = 0; i < sessions.size(); ++i) {
    clients.emplace_back([&, i] {
      replies[i] = host.post(call(10, "sleep 0.3; echo session-" + std::to_string(i)), sessions[i]);
    });
  }
  for (auto& client : clients) client.join();
  for (size_t i = 0; i < sessions.size(); ++i) {
    ASSERT_EQ(replies[i].status, 200) << replies[i].describe();
    const auto events = replies[i].events();
    ASSERT_FALSE(events.empty()) << replies[i].describe();
    EXPECT_EQ(events.back()["result"]["structuredContent"]["stdout"],
              "session-" + std::to_string(i) + "\n");
  }
}

TEST(HttpTransport, DeleteEndsTheSession) {
  HttpHost host;
  const std::string session = host.open_session();
  const HttpReply deleted =
      host.request("DELETE", "/mcp", {"-H", "Mcp-Session-Id: " + session});
  EXPECT_EQ(deleted.status, 200) << deleted.describe();
  EXPECT_EQ(host.post(request(2, "ping"), session).status, 404);
  EXPECT_EQ(host.request("DELETE", "/mcp", {"-H", "Mcp-Session-Id: " + session}).status, 404);
}

TEST(HttpTransport, UnsupportedProtocolVersionHeaderIs400) {
  HttpHost host;
  const std::string session = host.open_session();
  EXPECT_EQ(host.post(request(2, "ping"), session, {"MCP-Protocol-Version: 2025-03-26"}).status,
            200);
  const HttpReply bad = host.post(request(3, "ping"), session, {"MCP-Protocol-Version: 1999-01-01"});
  EXPECT_EQ(bad.status, 400) << bad.describe();
}

TEST(HttpTransport, AcceptContentTypeJsonAndBatchesAreChecked) {
  HttpHost host;
  const HttpReply json_only =
      host.request("POST", "/mcp",
                   {"-H", "Accept: application/json", "-H", "Content-Type: application/json",
                    "--data-binary", initialize_request().dump()});
  EXPECT_EQ(json_only.status, 406) << json_only.describe();

  const HttpReply text = host.request(
      "POST", "/mcp",
      {"-H", "Accept: application/json, text/event-stream", "-H", "Content-Type: text/plain",
       "--data-binary", initialize_request().dump()});
  EXPECT_EQ(text.status, 415) << text.describe();

  const HttpReply garbage = host.request(
      "POST", "/mcp",
      {"-H", "Accept: application/json, text/event-stream", "-H",
       "Content-Type: application/json", "--data-binary", "{not json"});
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(garbage.json()["error"]["code"], -32700);

  const HttpReply batch = host.post(Json::array({request(1, "ping"), request(2, "ping")}));
  EXPECT_EQ(batch.status, 400);
  EXPECT_EQ(batch.json()["error"]["code"], -32600);
  EXPECT_TRUE(host.process().running());
}

TEST(HttpTransport, GetStreamOpensOncePerSession) {
  HttpHost host;
  const std::string session = host.open_session();
  // curl gives up after 2 s; the stream has its headers and opening comment by then.
  const HttpReply stream = host.request(
      "GET", "/mcp", {"-H", "Accept: text/event-stream", "-H", "Mcp-Session-Id: " + session}, 2s);
  EXPECT_EQ(stream.status, 200) << stream.describe();
  EXPECT_EQ(stream.header("content-type"), "text/event-stream");
  EXPECT_EQ(stream.body.rfind(": stream open", 0), 0u) << stream.body;

  const HttpReply no_sse = host.request(
      "GET", "/mcp", {"-H", "Accept: application/json", "-H", "Mcp-Session-Id: " + session});
  EXPECT_EQ(no_sse.status, 406);
}

TEST(HttpTransport, HealthServiceInfoAndActivity) {
  HttpHost host;
  const HttpReply health = host.request("GET", "/healthz", {});
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.json(), Json::parse(R"({"status":"ok"})"));

  const HttpReply info = host.request("GET", "/", {});
  EXPECT_EQ(info.status, 200);
  EXPECT_EQ(info.json()["mcp_endpoint"], "/mcp");
  EXPECT_EQ(info.json()["health"], "/healthz");
  EXPECT_EQ(info.json()["backend"], "process");

  const std::string session = host.open_session();
  host.post(call(2, "echo activity"), session);
  host.post(request(3, "tools/list"), session);
  const HttpReply activity = host.request("GET", "/activity", {});
  EXPECT_EQ(activity.status, 200);
  EXPECT_EQ(activity.header("cache-control"), "no-store");
  const Json feed = activity.json();
  ASSERT_EQ(feed["events"].size(), 2u) << activity.describe();
  EXPECT_EQ(feed["revision"], 2);
  EXPECT_EQ(feed["events"][0]["phase"], "request");
  EXPECT_EQ(feed["events"][0]["arguments"]["command"], "echo activity");
  EXPECT_EQ(feed["events"][1]["phase"], "result");
  EXPECT_EQ(feed["events"][1]["payload"]["stdout"], "activity\n");
  EXPECT_EQ(host.request("GET", "/activity?after=1", {}).json()["events"].size(), 1u);
  EXPECT_EQ(host.request("GET", "/activity?after=-5", {}).json()["events"].size(), 2u);
  EXPECT_EQ(host.request("GET", "/nowhere", {}).status, 404);
}

// Sends `requests` down one keep-alive connection, half-closes it and returns every byte the
// server sent until it closed.
std::string exchange_on_one_connection(int port, const std::string& requests) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return {};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  std::string received;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      send(fd, requests.data(), requests.size(), 0) == static_cast<ssize_t>(requests.size())) {
    shutdown(fd, SHUT_WR);
    timeval wait{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char buffer[4096];
    for (ssize_t got; (got = recv(fd, buffer, sizeof buffer, 0)) > 0;) {
      received.append(buffer, static_cast<size_t>(got));
    }
  }
  close(fd);
  return received;
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(HttpTransport, HeadAnswersWithGetsHeadersAndNoContent) {
  HttpHost host;
  const std::string head = "HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string get = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  // HEAD on /mcp answers what GET would (no session: 400), without the body or a stream.
  const std::string refused =
      "HEAD /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
  const std::string bytes = exchange_on_one_connection(host.port(), head + refused + get);
  // Three answers on one connection; the body {"status":"ok"} (15 bytes) only once, after the
  // GET: had the HEAD carried it, the second status line would not follow the first head.
  ASSERT_EQ(occurrences(bytes, "HTTP/1.1 "), 3u) << bytes;
  EXPECT_EQ(occurrences(bytes, "Content-Length: 15\r\n"), 2u) << bytes;
  EXPECT_EQ(occurrences(bytes, R"({"status":"ok"})"), 1u) << bytes;
  const size_t first_end = bytes.find("\r\n\r\n");
  const std::string refused_status = "HTTP/1.1 400 Bad Request";
  EXPECT_EQ(bytes.compare(first_end + 4, refused_status.size(), refused_status), 0) << bytes;
  EXPECT_EQ(bytes.find("Missing session ID"), std::string::npos) << "no body after HEAD: " << bytes;
  const size_t second_end = bytes.find("\r\n\r\n", first_end + 4);
  EXPECT_EQ(bytes.compare(second_end + 4, 15, "HTTP/1.1 200 OK"), 0) << bytes;
  EXPECT_EQ(bytes.substr(bytes.size() - 15), R"({"status":"ok"})") << bytes;
}

TEST(HttpTransport, IdleSessionsEndAfterTheSessionTimeout) {
  HttpHost host({"--session-timeout", "1"});
  const std::string session = host.open_session();
  EXPECT_EQ(host.post(request(2, "ping"), session).status, 200);
  std::this_thread::sleep_for(2500ms);
  EXPECT_EQ(host.post(request(3, "ping"), session).status, 404);
  EXPECT_NE(host.process().stderr_text().find("idle for longer than the session timeout"),
            std::string::npos);
}

TEST(HttpTransport, ABusySessionIsNotIdle) {
  HttpHost host({"--session-timeout", "1"});
  const std::string session = host.open_session();
  const HttpReply reply = host.post(call(2, "sleep 2.5; echo survived"), session);
  const auto events = reply.events();
  ASSERT_FALSE(events.empty()) << reply.describe();
  EXPECT_EQ(events.back()["result"]["structuredContent"]["stdout"], "survived\n");
}

// The product serves its own tools only; the conformance suite's fixtures come with the test
// host alone (tests/conformance).
TEST(HttpTransport, ConformanceFixturesOnlyInTheTestHost) {
  auto tool_names = [](const HttpHost& host) {
    const std::string session = host.open_session();
    std::vector<std::string> names;
    const Json listed = host.post(request(2, "tools/list"), session).json();
    for (const auto& tool : listed["result"]["tools"]) names.push_back(tool["name"]);
    return names;
  };
  HttpHost plain;
  EXPECT_EQ(tool_names(plain),
            (std::vector<std::string>{"terminal_execute", "computer_ui", "runtime_status",
                                      "set_network_access", "set_desktop_environment", "list_directory", "read_file",
                                      "write_file", "edit_file", "read_activity"}));

  HttpHost fixtures({}, {}, VC_CONFORMANCE_HOST_BINARY);
  const auto names = tool_names(fixtures);
  EXPECT_NE(std::find(names.begin(), names.end(), "test_sampling"), names.end());
  const std::string session = fixtures.open_session();
  const Json read = fixtures.post(request(3, "resources/read", {{"uri", "test://template/7/data"}}),
                                  session).json();
  EXPECT_EQ(read["result"]["contents"][0]["text"],
            R"({"id":"7","templateTest":true,"data":"Data for ID: 7"})");
}

TEST(HttpTransport, SigtermEndsTheServerCleanly) {
  HttpHost host;
  host.open_session();
  const auto status = host.stop();
  EXPECT_TRUE(status.exited && status.code == 0) << status.describe();
}

}  // namespace
}  // namespace vc::http_test
