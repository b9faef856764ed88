// agent_connection.h — what both agent channels share: one process in a computer, started and
// awaited until it greets, then kept open.
//
//   closed --start()--> starting: the process is started (AgentComputer::start); what it or
//   the engine writes is kept (bounded) in case it never greets; its stderr is logged line by
//   line --the owner calls greeted()--> open --the stream ends or breaks--> closed.
//
// The owner (exec_agent_channel.h, desktop_channel.h) reads stdout itself (frames, JSON lines)
// and says when it has seen the greeting. What ends an attempt before the greeting reaches the
// owner once, as a StartFailure or a greeting timeout; what ends an open connection, as
// on_ended. close() ends any state at once and no handler runs after it.
//
// Thread rule: the channel's thread (channel_clock.h); the handlers run there.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/host_log.h>

#include "agent_process.h"
#include "channel_clock.h"

namespace vc::agent_channel {

struct AgentConnectionOptions {
  std::string log_name;  // "exec agent of it-1": how log lines name the process
  std::chrono::milliseconds greeting_deadline{10000};
  std::size_t early_output_kept = 1024;
  bool stderr_at_info = false;  // stderr lines at info level (else debug)
};

// An attempt that ended before the greeting.
struct StartFailure {
  std::optional<OpFailure> refused;  // the engine would not start the process at all
  std::string said;                  // what the process or the engine wrote (bounded)
  std::optional<std::int64_t> exit_code;
};

struct AgentConnectionHandlers {
  // Stdout bytes in order, before the greeting and after.
  std::function<void(std::string_view bytes)> on_stdout;
  // The attempt ended before greeted().
  std::function<void(const StartFailure& failure)> on_start_failed;
  // No greeting within the deadline: the process was killed; `said` as in StartFailure.
  std::function<void(const std::string& said)> on_greeting_timeout;
  // After greeted(): the stream ended or broke.
  std::function<void(const AgentStreamEnd& end)> on_ended;
};

class AgentConnection : public std::enable_shared_from_this<AgentConnection> {
 public:
  enum class State { kClosed, kStarting, kOpen };

  static std::shared_ptr<AgentConnection> make(std::shared_ptr<AgentComputer> computer,
                                               ChannelClock& clock, sdk::HostLog log,
                                               AgentConnectionOptions options,
                                               AgentConnectionHandlers handlers);
  ~AgentConnection();

  AgentConnection(const AgentConnection&) = delete;
  AgentConnection& operator=(const AgentConnection&) = delete;

  // Starts the process (closed state only).
  void start(AgentLaunch launch);
  // The owner has read the greeting: open.
  void greeted();
  // Bytes for the process's stdin (starting or open; dropped when closed).
  void write(std::string bytes);
  // Ends the connection in any state; `kill` also ends the process's group. No handler runs
  // after it.
  void close(bool kill);

  State state() const { return state_; }
  // What the process or the engine wrote before the greeting (bounded).
  const std::string& early_output() const { return early_output_; }

  // Use make().
  AgentConnection(std::shared_ptr<AgentComputer> computer, ChannelClock& clock,
                  sdk::HostLog log, AgentConnectionOptions options,
                  AgentConnectionHandlers handlers);

 private:
  void on_started(Expected<std::unique_ptr<AgentStream>> stream);
  void on_output(vc_stream stream, std::string_view bytes);
  void on_stderr(std::string_view bytes);
  void log_stderr_line(std::string_view line);
  void on_stream_end(const AgentStreamEnd& end);
  void on_greeting_deadline();
  void keep_early(std::string_view bytes);

  const std::shared_ptr<AgentComputer> computer_;
  ChannelClock& clock_;
  const sdk::HostLog log_;
  const AgentConnectionOptions options_;
  const AgentConnectionHandlers handlers_;

  State state_ = State::kClosed;
  std::shared_ptr<CancelScope> scope_;  // the current attempt; replaced by each start()
  std::unique_ptr<AgentStream> stream_;
  std::unique_ptr<ChannelTimer> greeting_timer_;
  std::string early_output_;
  std::string stderr_line_;
};

}  // namespace vc::agent_channel
