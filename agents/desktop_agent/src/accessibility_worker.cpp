// accessibility_worker.cpp — one request line at a time on stdin, one reply line on stdout.
// The bus connection is made on the first request and kept; when the bus goes away the
// worker says `unavailable` and its parent starts a new one for the next session.
#include "accessibility_worker.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "accessibility_tree.h"
#include "atspi_calls.h"
#include "vc_agent_common/log_line.h"
#include "protocol.h"

namespace vc::desktop_agent {

using agent_common::log_line;

namespace {

const char* kNoBus = "The accessibility bus is not available (the desktop is starting, or off).";

json handle(AtspiBus& bus, const json& request) {
  if (!bus.connected()) {
    const char* address = getenv("AT_SPI_BUS_ADDRESS");
    std::string error;
    if (address == nullptr || !bus.open(address, error)) {
      if (!error.empty()) log_line("accessibility bus: " + error);
      throw_unavailable(kNoBus);
    }
  }
  const std::string action = request.value("action", std::string());
  const int width = request.value("width", 1280);
  const int height = request.value("height", 800);
  if (action == "snapshot") return accessibility_snapshot(bus, width, height);
  if (action == "element_action") return element_action(bus, request);
  if (action == "element_bounds") {
    return element_bounds(bus, request.value("ref", std::string()), width, height);
  }
  throw_invalid("Unknown accessibility request '" + action + "'.");
}

void answer(AtspiBus& bus, const std::string& line) {
  json reply;
  try {
    const json request = json::parse(line);
    reply = json{{"ok", true}, {"result", handle(bus, request)}};
  } catch (const AgentError& error) {
    reply = json{{"ok", false}, {"code", error_code_name(error.code())}, {"error", error.what()}};
  } catch (const std::exception& error) {
    reply = json{{"ok", false}, {"code", "failed"}, {"error", error.what()}};
  }
  write_line(reply);
}

}  // namespace

int accessibility_worker_main() {
  AtspiBus bus;
  std::string pending;
  char buffer[65536];
  for (;;) {
    const ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    pending.append(buffer, static_cast<std::size_t>(got));
    std::size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      if (!line.empty()) answer(bus, line);
    }
  }
}

}  // namespace vc::desktop_agent
