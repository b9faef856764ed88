// desktop_channel.h — the open line to one computer's desktop agent.
//
// The desktop tools' actions are done by vc-desktop-agent inside the computer
// (docs/desktop-agent.md). Starting a process per action would cost an engine exec (~70–100 ms)
// each time, so the channel keeps one long-lived agent process with stdin attached
// (agent_connection.h) and exchanges one JSON line per request and reply on it:
//
//   closed --send()--> starting (the agent started as the desktop's user; waiting for its
//   ready line, 10 s) --ready--> open: requests written as they come, replies matched by id
//   --stream ends / a request times out--> closed: the next send() starts a new agent.
//
// A request that outlives its deadline means the agent is stuck: the request fails with
// VC_E_TIMEOUT and the agent's process group is killed, so the next action gets a fresh one.
// A request withdrawn while the agent works on it (a cancelled long `type`) ends the agent the
// same way: the agent does one request at a time, and would go on acting on the desktop and
// hold up every later action.
// The stream ending (the computer restarted or stopped, the agent crashed) fails what was
// pending with VC_E_UNAVAILABLE. An image without the agent fails with VC_E_UNSUPPORTED.
//
// Thread rule: the channel's thread (channel_clock.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/vc_status.h>

#include "agent_connection.h"
#include "agent_process.h"
#include "channel_clock.h"

namespace vc::agent_channel {

// Where the agent lives in the bundled image, and the user it runs as (the accessibility bus
// refuses other users).
inline constexpr const char* kDesktopAgentPath = "/usr/local/bin/vc-desktop-agent";
inline constexpr const char* kDesktopAgentUser = "computer";

class DesktopChannel : public std::enable_shared_from_this<DesktopChannel> {
 public:
  static std::shared_ptr<DesktopChannel> make(std::shared_ptr<AgentComputer> computer,
                                              ChannelClock& clock, sdk::HostLog log);
  ~DesktopChannel();

  DesktopChannel(const DesktopChannel&) = delete;
  DesktopChannel& operator=(const DesktopChannel&) = delete;

  // Sends `request` ({"action", ...}: the id is added here). `done` runs exactly once: with
  // the agent's result object, or a failure (the agent's error mapped to a status, or the
  // channel's). Returns a ticket for withdraw().
  std::uint64_t send(nlohmann::json request, std::chrono::milliseconds deadline,
                     Callback<nlohmann::json> done);

  // Stops waiting for ticket's reply: its done runs with VC_E_CANCELLED now (when it has not
  // run). A request the agent is already working on is stopped by ending the agent (its
  // process group): what it already did stays done, the requests behind it fail with
  // VC_E_UNAVAILABLE ("try again"), and the next send() starts a new agent.
  void withdraw(std::uint64_t ticket);

  // Ends the agent (stdin closed) and fails whatever is pending with `why`.
  void close(const OpFailure& why);

  // Use make().
  DesktopChannel(std::shared_ptr<AgentComputer> computer, ChannelClock& clock, sdk::HostLog log);

 private:
  struct Pending {
    std::string line;  // the request, serialised, with its newline
    std::string action;
    std::chrono::milliseconds deadline{0};
    Callback<nlohmann::json> done;
    std::unique_ptr<ChannelTimer> timer;
    bool written = false;
  };

  void connect();
  void start_agent();
  void on_stdout(std::string_view bytes);
  void on_stdout_line(std::string_view line);
  void on_ready();
  void on_reply(const nlohmann::json& reply);
  void on_start_failed(const StartFailure& failure);
  void on_ended(const AgentStreamEnd& end);
  void on_deadline(std::uint64_t ticket);
  void write_pending();
  void fail_all(const OpFailure& why);
  void reset(const OpFailure& why, bool kill_agent);
  OpFailure start_failure(const StartFailure& failure) const;
  const std::string& computer_id() const { return computer_->computer_id(); }

  const std::shared_ptr<AgentComputer> computer_;
  ChannelClock& clock_;
  const sdk::HostLog log_;
  std::shared_ptr<AgentConnection> connection_;
  std::string stdout_buffer_;
  std::uint64_t next_ticket_ = 1;
  std::map<std::uint64_t, Pending> pending_;  // ordered: requests are written in ticket order
};

// How long the plugin waits for the agent's reply to `request`: 30 s, or longer for an
// action whose own duration the request sets (wait_for_screen's timeout, typing a long text
// slowly, holding keys).
std::chrono::milliseconds desktop_action_deadline(const nlohmann::json& request);

// The status a desktop agent error code maps to ("invalid_argument" -> VC_E_INVALID_ARGUMENT).
vc_status desktop_agent_status(std::string_view code);

}  // namespace vc::agent_channel
