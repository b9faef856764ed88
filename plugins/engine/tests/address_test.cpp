// address_test.cpp — EngineAddress parsing and its error messages.
#include <gtest/gtest.h>

#include "vc_engine/engine_address.h"

namespace vc::engine {
namespace {

TEST(EngineAddress, UnixForms) {
  for (const char* text : {"unix:///var/run/docker.sock", "unix:/var/run/docker.sock",
                           "/var/run/docker.sock", "UNIX:///var/run/docker.sock"}) {
    auto address = EngineAddress::parse(text);
    ASSERT_TRUE(address) << text << ": " << address.error().message;
    EXPECT_TRUE(address.value().is_unix());
    EXPECT_EQ(address.value().path(), "/var/run/docker.sock");
    EXPECT_EQ(address.value().display(), "unix:///var/run/docker.sock");
    EXPECT_EQ(address.value().host_header(), "docker");
  }
}

TEST(EngineAddress, TcpForms) {
  auto plain = EngineAddress::parse("tcp://127.0.0.1:2376");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain.value().kind(), EngineAddress::Kind::kTcp);
  EXPECT_EQ(plain.value().host(), "127.0.0.1");
  EXPECT_EQ(plain.value().port(), 2376);
  EXPECT_EQ(plain.value().display(), "tcp://127.0.0.1:2376");

  auto default_port = EngineAddress::parse("tcp://localhost/");
  ASSERT_TRUE(default_port);
  EXPECT_EQ(default_port.value().port(), EngineAddress::kDefaultTcpPort);
  EXPECT_EQ(default_port.value().host_header(), "localhost:2375");

  auto v6 = EngineAddress::parse("tcp://[::1]:2375");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6.value().host(), "::1");
  EXPECT_EQ(v6.value().display(), "tcp://[::1]:2375");

  auto http = EngineAddress::parse("http://engine.local:80");
  ASSERT_TRUE(http);
  EXPECT_EQ(http.value().display(), "tcp://engine.local:80");
}

void expect_refused(const char* text, const char* fragment) {
  auto address = EngineAddress::parse(text);
  ASSERT_FALSE(address) << text;
  EXPECT_EQ(address.error().kind, EngineErrorKind::kInvalidArgument);
  EXPECT_NE(address.error().message.find(fragment), std::string::npos)
      << text << " gave: " << address.error().message;
}

TEST(EngineAddress, RefusedWithReasons) {
  expect_refused("https://host:2376", "TLS engine addresses (https://) are not supported");
  expect_refused("ssh://user@host", "need the docker CLI");
  expect_refused("npipe:////./pipe/docker_engine", "Windows named pipes");
  expect_refused("fd://", "systemd socket activation");
  expect_refused("gopher://x", "unsupported engine address scheme 'gopher://'");
  expect_refused("docker.sock", "is not an engine address");
  expect_refused("unix://relative/path.sock", "is not absolute");
  expect_refused("", "empty");
  expect_refused("tcp://:2375", "has no host");
  expect_refused("tcp://host:99999", "is not a TCP port");
  expect_refused("tcp://host:", "is not a TCP port");
  expect_refused("tcp://host:2375/v1.41", "has a path");
  expect_refused("tcp://::1:2375", "IPv6 host in brackets");
}

TEST(EngineAddress, UnixPathLengthLimit) {
  const std::string longest = "/" + std::string(EngineAddress::kMaxUnixPathLength - 1, 'a');
  EXPECT_TRUE(EngineAddress::parse(longest));
  const std::string too_long = longest + "b";
  auto address = EngineAddress::parse("unix://" + too_long);
  ASSERT_FALSE(address);
  EXPECT_EQ(address.error().message,
            "engine socket path is 108 bytes long; the limit for a unix socket is 107 (use a "
            "shorter path)");
}

}  // namespace
}  // namespace vc::engine
