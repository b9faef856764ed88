// api_connection_test.cpp — the server URL taken apart, and the addresses that are refused.
#include "api_connection.h"

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

ServerUrl parsed(const std::string& server) {
  auto url = parse_server_url(server);
  EXPECT_TRUE(url) << server << ": " << (url ? "" : url.error().message);
  return url ? url.value() : ServerUrl{};
}

std::string refusal(const std::string& server) {
  auto url = parse_server_url(server);
  EXPECT_FALSE(url) << server << " was accepted";
  return url ? "" : url.error().message;
}

TEST(ParseServerUrl, HostPortAndNoBasePath) {
  const ServerUrl url = parsed("https://127.0.0.1:6443");
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, "6443");
  EXPECT_EQ(url.base_path, "");
  EXPECT_EQ(url.text, "https://127.0.0.1:6443");
}

TEST(ParseServerUrl, PortDefaultsTo443) {
  EXPECT_EQ(parsed("https://api.example.com").port, "443");
  EXPECT_EQ(parsed("https://api.example.com/").port, "443");
  EXPECT_EQ(parsed("https://api.example.com/").base_path, "");
}

TEST(ParseServerUrl, BasePathWithoutTrailingSlash) {
  const ServerUrl url = parsed("https://rancher.example.com:8443/k8s/clusters/c-1/");
  EXPECT_EQ(url.host, "rancher.example.com");
  EXPECT_EQ(url.port, "8443");
  EXPECT_EQ(url.base_path, "/k8s/clusters/c-1");
}

TEST(ParseServerUrl, BracketedIpv6) {
  const ServerUrl url = parsed("https://[::1]:6443");
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, "6443");
  EXPECT_EQ(parsed("https://[fd00::1]").port, "443");
}

TEST(ParseServerUrl, RefusesWhatCannotCarryCredentialsOrIsBroken) {
  EXPECT_NE(refusal("http://127.0.0.1:8080").find("plain http is not supported"),
            std::string::npos);
  EXPECT_NE(refusal("127.0.0.1:6443").find("does not start with https://"), std::string::npos);
  EXPECT_NE(refusal("https://").find("names no host"), std::string::npos);
  EXPECT_NE(refusal("https://:6443").find("names no host"), std::string::npos);
  EXPECT_NE(refusal("https://h:0").find("port"), std::string::npos);
  EXPECT_NE(refusal("https://h:65536").find("port"), std::string::npos);
  EXPECT_NE(refusal("https://h:64x").find("port"), std::string::npos);
  EXPECT_NE(refusal("https://h:").find("port"), std::string::npos);
  EXPECT_NE(refusal("https://user:pw@h:6443").find("user information"), std::string::npos);
  EXPECT_NE(refusal("https://[::1:6443").find("lacks ']'"), std::string::npos);
  EXPECT_NE(refusal("https://h:6443?x=1").find("query"), std::string::npos);
}

TEST(ParseServerUrl, TheSentenceQuotesTheAddressBounded) {
  const std::string message = refusal("ftp://" + std::string(1000, 'h'));
  EXPECT_NE(message.find("The cluster's server address \"ftp://hhh"), std::string::npos);
  EXPECT_LT(message.size(), 400u);
}

}  // namespace
}  // namespace vc::kubernetes
