// http_app_test.cpp — the MCP App's server side over HTTP (docs/app.md): the extension in
// initialize, the ui:// resource and its _meta, the tools' links and visibility, the
// /dashboard.html route (open without the token, with its own policy, Host checks kept, 404
// with the reason when the file is missing), and read_activity's long poll woken by another
// session.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>

#include "host_environment.h"
#include "process_http_host.h"

namespace vc::http_test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kAppToken = "app-test-token-7f3a";
constexpr const char* kAppUri = "ui://virtual-computer/computer.html";
const std::string kAuth = std::string("Authorization: Bearer ") + kAppToken;

// A stand-in App file, so that the test does not depend on node having built the real one.
class AppFile {
 public:
  AppFile() : path_(std::filesystem::temp_directory_path() /
                    ("vc-app-test-" + std::to_string(::getpid()) + ".html")) {
    std::ofstream(path_) << "<!doctype html><title>Virtual Computer</title><p>é</p>";
  }
  ~AppFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

Json result_of(const HttpReply& reply) {
  const Json body = reply.json();
  if (body.is_object()) return body.value("result", Json());
  const auto events = reply.events();
  return events.empty() ? Json() : events.back().value("result", Json());
}

TEST(HttpApp, TheResourceTheExtensionAndTheToolsLinks) {
  AppFile app;
  HttpHost host({"--auth-token", kAppToken, "--app-file", app.path()});
  const HttpReply init = host.post(initialize_request(), std::nullopt, {kAuth});
  EXPECT_TRUE(init.json()["result"]["capabilities"]["extensions"].contains("io.modelcontextprotocol/ui"))
      << init.describe();
  const std::string session = host.open_session({kAuth});

  const HttpReply list_reply = host.post(request(2, "resources/list"), session, {kAuth});
  const Json listed = result_of(list_reply);
  ASSERT_TRUE(listed.is_object() && listed.contains("resources") && !listed["resources"].empty())
      << list_reply.describe();
  const Json& resource = listed["resources"][0];
  EXPECT_EQ(resource["uri"], kAppUri);
  EXPECT_EQ(resource["mimeType"], "text/html;profile=mcp-app");
  EXPECT_EQ(resource["_meta"]["ui"]["csp"]["connectDomains"], Json::array({"ws://127.0.0.1:*"}));
  EXPECT_EQ(resource["_meta"]["ui"]["prefersBorder"], false);

  const HttpReply read_reply = host.post(request(3, "resources/read", {{"uri", kAppUri}}), session, {kAuth});
  const Json read = result_of(read_reply);
  ASSERT_TRUE(read.is_object() && read.contains("contents") && read["contents"].size() == 1u)
      << read_reply.describe();
  EXPECT_EQ(read["contents"][0]["text"], "<!doctype html><title>Virtual Computer</title><p>é</p>");
  EXPECT_EQ(read["contents"][0]["_meta"], resource["_meta"]);

  const HttpReply tools_reply = host.post(request(4, "tools/list"), session, {kAuth});
  const Json tools = result_of(tools_reply);
  ASSERT_TRUE(tools.is_object() && tools.contains("tools")) << tools_reply.describe();
  std::map<std::string, Json> meta;
  for (const auto& tool : tools["tools"]) meta[tool["name"]] = tool.value("_meta", Json());
  for (const char* name : {"terminal_execute", "computer_ui", "read_file", "write_file", "edit_file"}) {
    EXPECT_EQ(meta[name]["ui"]["resourceUri"], kAppUri) << name;
    EXPECT_EQ(meta[name]["ui"]["visibility"], Json::array({"model", "app"})) << name;
    EXPECT_EQ(meta[name]["openai/outputTemplate"], kAppUri) << name;
  }
  for (const char* name : {"runtime_status", "set_network_access", "set_desktop_environment",
                           "list_directory", "read_activity"}) {
    EXPECT_EQ(meta[name], Json({{"ui", {{"visibility", Json::array({"app"})}}}})) << name;
  }
}

TEST(HttpApp, TheDashboardIsOpenWithoutTheTokenWithAPolicyAndHostChecks) {
  AppFile app;
  HttpHost host({"--auth-token", kAppToken, "--app-file", app.path()});
  const HttpReply page = host.request("GET", "/dashboard.html", {});
  ASSERT_EQ(page.status, 200) << page.describe();
  EXPECT_EQ(page.body, "<!doctype html><title>Virtual Computer</title><p>é</p>");
  EXPECT_EQ(page.header("content-type"), "text/html; charset=utf-8");
  const std::string policy = page.header("content-security-policy").value_or("");
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos) << policy;
  EXPECT_NE(policy.find("connect-src 'self' ws://127.0.0.1:*"), std::string::npos) << policy;
  EXPECT_EQ(page.header("referrer-policy"), "no-referrer");
  EXPECT_EQ(page.header("cache-control"), "no-store");
  EXPECT_EQ(host.request("GET", "/dashboard.html", {"-H", "Host: evil.example.com"}).status, 421);
  EXPECT_EQ(host.request("GET", "/dashboard.html", {"-H", "Origin: https://evil.example.com"}).status,
            403);
  EXPECT_EQ(host.request("GET", "/activity", {}).status, 401) << "the feed still needs the token";
}

TEST(HttpApp, AMissingAppIsA404AndAResourceErrorThatNameTheFile) {
  HttpHost host({"--app-file", "/nonexistent/computer.html"});
  const HttpReply page = host.request("GET", "/dashboard.html", {});
  EXPECT_EQ(page.status, 404);
  EXPECT_NE(page.body.find("/nonexistent/computer.html"), std::string::npos) << page.body;
  const std::string session = host.open_session();
  const Json reply = host.post(request(2, "resources/read", {{"uri", kAppUri}}), session).json();
  const std::string message = reply["error"].value("message", "");
  EXPECT_NE(message.find("not installed"), std::string::npos) << reply.dump();
  EXPECT_NE(message.find("/nonexistent/computer.html"), std::string::npos) << reply.dump();
}

TEST(HttpApp, ReadActivityWaitsAndIsWokenByAnotherSessionsCommand) {
  HttpHost host;
  const std::string watcher = host.open_session();
  const std::string agent = host.open_session();
  auto waiting = std::async(std::launch::async, [&] {
    const auto started = std::chrono::steady_clock::now();
    const HttpReply reply = host.post(
        request(2, "tools/call", {{"name", "read_activity"}, {"arguments", {{"after", 0}, {"wait_ms", 20000}}}}),
        watcher);
    return std::make_pair(reply, std::chrono::steady_clock::now() - started);
  });
  std::this_thread::sleep_for(500ms);
  host.post(request(3, "tools/call", {{"name", "terminal_execute"}, {"arguments", {{"command", "echo woken"}}}}),
            agent);
  const auto [reply, waited] = waiting.get();
  const Json result = result_of(reply);
  ASSERT_FALSE(result["structuredContent"]["events"].empty()) << reply.describe();
  EXPECT_EQ(result["structuredContent"]["events"][0]["arguments"]["command"], "echo woken");
  EXPECT_LT(waited, 15s) << "the wait ran to its deadline instead of waking";

  // Nothing newer: the deadline answers with no events.
  const int64_t revision = result["structuredContent"]["revision"];
  const Json idle = result_of(host.post(
      request(4, "tools/call", {{"name", "read_activity"}, {"arguments", {{"after", revision + 100}, {"wait_ms", 50}}}}),
      watcher));
  EXPECT_TRUE(idle["structuredContent"]["events"].empty()) << idle.dump();
  // Out of bounds: refused by the schema.
  const Json bad = result_of(host.post(
      request(5, "tools/call", {{"name", "read_activity"}, {"arguments", {{"wait_ms", 25001}}}}), watcher));
  EXPECT_TRUE(bad.value("isError", false)) << bad.dump();
}

}  // namespace
}  // namespace vc::http_test
