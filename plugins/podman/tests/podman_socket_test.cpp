// podman_socket_test.cpp — which socket the Podman plugin talks to, and when it starts its own.
#include "podman_socket.h"

#include <gtest/gtest.h>

#include <string>

namespace vc::podman {
namespace {

std::string probed;  // the last path the fake probe was asked about

bool answers(const std::string& path) {
  probed = path;
  return true;
}
bool silent(const std::string& path) {
  probed = path;
  return false;
}

SocketInputs root_inputs() {
  SocketInputs inputs;
  inputs.is_root = true;
  inputs.pid = 4242;
  return inputs;
}

TEST(PodmanSocket, ExplicitAddressWinsAndIsNeverProbedOrStarted) {
  auto inputs = root_inputs();
  inputs.explicit_address = "/tmp/my/podman.sock";
  inputs.docker_host = "unix:///run/podman/other.sock";
  probed.clear();
  auto choice = choose_socket(inputs, &silent);
  EXPECT_EQ(choice.address, "unix:///tmp/my/podman.sock");
  EXPECT_FALSE(choice.start_service);
  EXPECT_TRUE(probed.empty());
}

TEST(PodmanSocket, DockerHostCountsOnlyWhenItNamesAPodmanSocket) {
  auto inputs = root_inputs();
  inputs.docker_host = "unix:///run/user/1000/podman/podman.sock";
  EXPECT_EQ(choose_socket(inputs, &silent).address, "unix:///run/user/1000/podman/podman.sock");

  inputs.docker_host = "unix:///var/run/docker.sock";
  auto choice = choose_socket(inputs, &answers);
  EXPECT_EQ(choice.address, "unix:///run/podman/podman.sock");
  EXPECT_EQ(probed, "/run/podman/podman.sock");
}

TEST(PodmanSocket, RootUsesTheSystemSocketWhenItAnswers) {
  auto choice = choose_socket(root_inputs(), &answers);
  EXPECT_EQ(choice.address, "unix:///run/podman/podman.sock");
  EXPECT_FALSE(choice.start_service);
}

TEST(PodmanSocket, RootlessUsesTheRuntimeDirectory) {
  SocketInputs inputs;
  inputs.is_root = false;
  inputs.xdg_runtime_dir = "/run/user/1000";
  inputs.pid = 7;
  auto choice = choose_socket(inputs, &answers);
  EXPECT_EQ(choice.address, "unix:///run/user/1000/podman/podman.sock");

  choice = choose_socket(inputs, &silent);
  EXPECT_TRUE(choice.start_service);
  EXPECT_EQ(choice.socket_path, "/run/user/1000/mcp-virtual-computer/podman-7.sock");
  EXPECT_EQ(choice.address, "unix://" + choice.socket_path);
}

TEST(PodmanSocket, NoAnswerStartsAPrivateServiceUnlessTold) {
  auto inputs = root_inputs();
  auto choice = choose_socket(inputs, &silent);
  EXPECT_TRUE(choice.start_service);
  EXPECT_EQ(choice.socket_path, "/run/mcp-virtual-computer/podman-4242.sock");

  inputs.mode = ServiceMode::kNever;
  choice = choose_socket(inputs, &silent);
  EXPECT_FALSE(choice.start_service);
  EXPECT_EQ(choice.address, "unix:///run/podman/podman.sock");
}

TEST(PodmanSocket, AlwaysStartsAPrivateServiceEvenWhenTheSystemOneAnswers) {
  auto inputs = root_inputs();
  inputs.mode = ServiceMode::kAlways;
  auto choice = choose_socket(inputs, &answers);
  EXPECT_TRUE(choice.start_service);
  EXPECT_EQ(choice.socket_path, "/run/mcp-virtual-computer/podman-4242.sock");
}

TEST(PodmanSocket, ServiceModeAndAddressParsing) {
  EXPECT_EQ(parse_service_mode("auto"), ServiceMode::kAuto);
  EXPECT_EQ(parse_service_mode("never"), ServiceMode::kNever);
  EXPECT_EQ(parse_service_mode("always"), ServiceMode::kAlways);
  EXPECT_FALSE(parse_service_mode("Always"));
  EXPECT_FALSE(parse_service_mode(""));
  EXPECT_EQ(normalise_address("/a/b.sock"), "unix:///a/b.sock");
  EXPECT_EQ(normalise_address("tcp://127.0.0.1:8888"), "tcp://127.0.0.1:8888");
  EXPECT_TRUE(looks_like_podman_socket("unix:///run/podman/podman.sock"));
  EXPECT_FALSE(looks_like_podman_socket("tcp://podman:2375"));
  EXPECT_FALSE(looks_like_podman_socket("unix:///var/run/docker.sock"));
}

}  // namespace
}  // namespace vc::podman
