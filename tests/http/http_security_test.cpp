// http_security_test.cpp — safe by default: DNS-rebinding protection, the bearer token, body
// and header limits, and the refusal to serve a non-loopback address without a token.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "command_runner.h"
#include "host_environment.h"
#include "process_http_host.h"

namespace vc::http_test {
namespace {

constexpr const char* kSecurityToken = "s3cret-token-Value_42";

TEST(HttpSecurity, TheTokenGuardsMcpActivityAndInfoButNotHealth) {
  HttpHost host({"--auth-token", kSecurityToken});
  const HttpReply none = host.post(initialize_request());
  EXPECT_EQ(none.status, 401) << none.describe();
  EXPECT_EQ(none.header("www-authenticate"), "Bearer");
  EXPECT_EQ(none.json(), Json::parse(R"({"error":"unauthorized"})"));

  EXPECT_EQ(host.post(initialize_request(), std::nullopt, {"Authorization: Bearer wrong"}).status,
            401);
  EXPECT_EQ(host.post(initialize_request(), std::nullopt,
                      {std::string("Authorization: Basic ") + kSecurityToken})
                .status,
            401);
  EXPECT_EQ(host.post(initialize_request(), std::nullopt,
                      {std::string("Authorization: Bearer ") + kSecurityToken + "x"})
                .status,
            401);

  const HttpReply right =
      host.post(initialize_request(), std::nullopt, {std::string("Authorization: Bearer ") + kSecurityToken});
  EXPECT_EQ(right.status, 200) << right.describe();
  const HttpReply lower_scheme =
      host.post(initialize_request(), std::nullopt, {std::string("Authorization: bEaReR ") + kSecurityToken});
  EXPECT_EQ(lower_scheme.status, 200) << lower_scheme.describe();

  EXPECT_EQ(host.request("GET", "/activity", {}).status, 401);
  EXPECT_EQ(host.request("GET", "/", {}).status, 401);
  EXPECT_EQ(host.request("GET", "/activity", {"-H", std::string("Authorization: Bearer ") + kSecurityToken})
                .status,
            200);
  EXPECT_EQ(host.request("GET", "/healthz", {}).status, 200);

  host.stop();
  EXPECT_EQ(host.process().stderr_text().find(kSecurityToken), std::string::npos)
      << "the token appeared in the log";
}

TEST(HttpSecurity, TheTokenComesFromTheEnvironmentToo) {
  HttpHost host({}, {{"MCP_VIRTUAL_COMPUTER_AUTH_TOKEN", kSecurityToken}});
  EXPECT_EQ(host.post(initialize_request()).status, 401);
  EXPECT_EQ(host.post(initialize_request(), std::nullopt,
                      {std::string("Authorization: Bearer ") + kSecurityToken})
                .status,
            200);
}

TEST(HttpSecurity, ForeignHostAndOriginAreRefusedOnLoopback) {
  HttpHost host;
  const HttpReply bad_host = host.post(initialize_request(), std::nullopt, {"Host: evil.example.com"});
  EXPECT_EQ(bad_host.status, 421) << bad_host.describe();
  const HttpReply bad_origin =
      host.post(initialize_request(), std::nullopt, {"Origin: http://evil.example.com"});
  EXPECT_EQ(bad_origin.status, 403) << bad_origin.describe();
  EXPECT_EQ(host.post(initialize_request(), std::nullopt, {"Origin: null"}).status, 403);
  EXPECT_EQ(host.request("GET", "/activity", {"-H", "Host: evil.example.com"}).status, 421);

  EXPECT_EQ(host.post(initialize_request(), std::nullopt,
                      {"Host: localhost:8435", "Origin: http://localhost:3000"})
                .status,
            200);
  EXPECT_EQ(host.post(initialize_request(), std::nullopt, {"Host: [::1]:1", "Origin: https://127.0.0.1"})
                .status,
            200);
}

TEST(HttpSecurity, OversizedBodiesGet413AndTheServerKeepsServing) {
  HttpHost host({"--max-request-bytes", "2048"});
  const std::string session = host.open_session();
  Json big = request(2, "tools/call",
                     {{"name", "terminal_execute"},
                      {"arguments", {{"command", "echo " + std::string(4000, 'x')}}}});
  const HttpReply too_big = host.post(big, session);
  EXPECT_EQ(too_big.status, 413) << too_big.describe();
  const HttpReply chunked = host.post(big, session, {"Transfer-Encoding: chunked"});
  EXPECT_EQ(chunked.status, 413) << chunked.describe();
  EXPECT_EQ(host.request("GET", "/activity", {}).json()["events"].size(), 0u)
      << "nothing of the refused request may have run";

  const HttpReply small = host.post(request(3, "ping"), session, {"Transfer-Encoding: chunked"});
  EXPECT_EQ(small.status, 200) << small.describe();
}

TEST(HttpSecurity, SlowHeadersAreDropped) {
  HttpHost host;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(host.port()));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const std::string partial = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n";
  ASSERT_EQ(send(fd, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
  timeval wait{20, 0};  // the server's header timeout is 10 s
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  char byte = 0;
  const ssize_t received = recv(fd, &byte, 1, 0);
  close(fd);
  EXPECT_EQ(received, 0) << "the server should have closed the connection";
  EXPECT_EQ(host.request("GET", "/healthz", {}).status, 200);
}

TEST(HttpSecurity, NonLoopbackBindNeedsATokenOrAnExplicitOptOut) {
  test::Environment environment = test::host_environment({{"COMPUTER_ID", "bind-test"}});
  const auto refused = test::run_command(
      {VC_HOST_BINARY, "--backend", "process", "--transport", "http", "--host", "0.0.0.0",
       "--port", "0"},
      30s, {}, environment);
  EXPECT_EQ(refused.status.code, 1) << refused.describe({"host"});
  EXPECT_NE(refused.err.find("--allow-unauthenticated-http"), std::string::npos) << refused.err;

  // With a token it serves, and the Host allow-list (a loopback protection) does not apply.
  HttpHost host({"--host", "0.0.0.0", "--auth-token", kSecurityToken});
  const HttpReply reply = host.post(initialize_request(), std::nullopt,
                                    {std::string("Authorization: Bearer ") + kSecurityToken,
                                     "Host: computer.internal:8435"});
  EXPECT_EQ(reply.status, 200) << reply.describe();
}

}  // namespace
}  // namespace vc::http_test
