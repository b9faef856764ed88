// podman_service_test.cpp — the private service's process handling, with stand-in executables
// (the real `podman system service` is exercised by tests/integration).
#include "podman_service.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace vc::podman {
namespace {

class PodmanServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vc-podman-service-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string script(const std::string& name, const std::string& body) {
    auto path = dir_ / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path.string();
  }

  std::filesystem::path dir_;
};

TEST_F(PodmanServiceTest, MissingExecutableSaysWhatToDo) {
  PodmanService service((dir_ / "s.sock").string(), "no-such-podman-binary-here");
  std::string message;
  EXPECT_FALSE(service.start(message));
  EXPECT_NE(message.find("was not found on PATH"), std::string::npos) << message;
  EXPECT_NE(message.find("--podman-socket"), std::string::npos) << message;
}

TEST_F(PodmanServiceTest, AServiceThatExitsEarlyIsReportedWithItsStatus) {
  PodmanService service((dir_ / "s.sock").string(),
                        script("exiting-podman", std::string("exec ") + VC_FAKE_PODMAN +
                                                     " --exit 3"));
  std::string message;
  EXPECT_FALSE(service.start(message));
  EXPECT_NE(message.find("exited with status 3"), std::string::npos) << message;
}

TEST_F(PodmanServiceTest, ListeningServiceIsReadyAndStoppedWithItsSocket) {
  const auto socket = (dir_ / "sub" / "s.sock").string();
  PodmanService service(socket, VC_FAKE_PODMAN);
  std::string message;
  ASSERT_TRUE(service.start(message)) << message;
  EXPECT_TRUE(unix_socket_accepts(socket));
  EXPECT_EQ(std::filesystem::status(dir_ / "sub").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  service.stop();
  EXPECT_FALSE(std::filesystem::exists(socket));
  EXPECT_FALSE(unix_socket_accepts(socket));
}

TEST(PodmanServiceHelpers, FindExecutable) {
  EXPECT_EQ(find_executable("/bin/sh"), "/bin/sh");
  EXPECT_FALSE(find_executable("sh").empty());
  EXPECT_TRUE(find_executable("/no/such/file").empty());
  EXPECT_TRUE(find_executable("no-such-executable-anywhere").empty());
}

}  // namespace
}  // namespace vc::podman
