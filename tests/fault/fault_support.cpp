// fault_support.cpp — see fault_support.h.
#include "fault_support.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "mcp_client.h"

namespace vc::fault {

using namespace std::chrono_literals;

bool wait_for_process(const test::ContainerEngine& engine, const std::string& container,
                      const std::string& name, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto names = engine.process_names(container);
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

namespace {

int descriptor_count(pid_t pid) {
  std::error_code error;
  int count = 0;
  for (std::filesystem::directory_iterator it("/proc/" + std::to_string(pid) + "/fd", error), end;
       !error && it != end; it.increment(error)) {
    ++count;
  }
  return error ? -1 : count;
}

}  // namespace

int settled_descriptor_count(pid_t pid) {
  int last = descriptor_count(pid);
  for (int round = 0; round < 20; ++round) {
    std::this_thread::sleep_for(250ms);
    const int now = descriptor_count(pid);
    if (now == last) return now;
    last = now;
  }
  return last;
}

std::string tool_error(const test::Json& tool_result) {
  const test::Json payload = test::McpClient::payload_of(tool_result);
  return payload.is_object() ? payload.value("error", "") : std::string();
}

}  // namespace vc::fault
