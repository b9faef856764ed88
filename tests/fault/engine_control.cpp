// engine_control.cpp — /proc for the server's pid, kill(2), and the setup scripts.
#include "engine_control.h"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "command_runner.h"

namespace vc::fault {
namespace {

using namespace std::chrono_literals;

std::string read_cmdline(const std::filesystem::path& process) {
  std::ifstream in(process / "cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text) {
    if (c == '\0') c = ' ';
  }
  return text;
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

pid_t engine_server_pid(const test::ContainerEngine& engine) {
  const std::string program = engine.name == "docker" ? "dockerd" : "podman";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = read_cmdline(entry.path());
    const std::string first = cmdline.substr(0, cmdline.find(' '));
    if (std::filesystem::path(first).filename() != program) continue;
    if (cmdline.find(engine.socket_path) == std::string::npos) continue;
    return static_cast<pid_t>(std::stol(name));
  }
  return 0;
}

std::string stop_engine(const test::ContainerEngine& engine) {
  const pid_t pid = engine_server_pid(engine);
  if (pid == 0) {
    return "no " + engine.name + " API server serving " + engine.socket_path +
           " was found (it must run with the socket on its command line, as " +
           engine.setup_command + " starts it)";
  }
  if (::kill(pid, SIGTERM) != 0) return "cannot signal pid " + std::to_string(pid);
  const auto deadline = std::chrono::steady_clock::now() + 90s;
  while (alive(pid)) {
    if (std::chrono::steady_clock::now() > deadline) {
      return "the " + engine.name + " API server (pid " + std::to_string(pid) +
             ") did not exit within 90 s of SIGTERM";
    }
    std::this_thread::sleep_for(100ms);
  }
  return {};
}

std::string start_engine(const test::ContainerEngine& engine) {
  const std::string script =
      std::string(VC_SOURCE_DIR) + "/scripts/engines/" + engine.name + "-up.sh";
  // The engine outlives this test: it must not inherit the test's descriptors (a lock a
  // build tool holds, the test runner's pipes), so every one above stderr is closed first.
  const std::vector<std::string> argv = {
      "bash", "-c",
      "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
      "exec bash \"$0\"",
      script};
  const auto result = test::run_command(argv, 180s);
  if (!result.ok()) return result.describe(argv);
  if (!engine.socket_answers()) return engine.socket_path + " does not answer after " + script;
  return {};
}

EngineOutage::EngineOutage(const test::ContainerEngine& engine)
    : engine_(engine), stop_error_(stop_engine(engine)) {}

EngineOutage::~EngineOutage() { (void)restore(); }

std::string EngineOutage::restore() {
  if (restored_) return {};
  restored_ = true;
  return start_engine(engine_);
}

}  // namespace vc::fault
