// agent_process.h — what an agent channel needs of an engine: a long-lived byte stream to a
// process started in a computer, and a way to put the exec agent's program there.
//
// The channels (exec_agent_channel.h, desktop_channel.h) know nothing of engines. Each engine's
// plugin implements AgentComputer for one computer: the container plugins with the Engine
// API's exec (stdin, stdout and stderr attached) and its archive upload, the Kubernetes plugin
// with the API server's pods/exec WebSocket.
//
// Thread rule: every call on the channel's thread (channel_clock.h); every callback runs there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vc-backend-1/vc_op.h>

#include "channel_types.h"

namespace vc::agent_channel {

// The process to start.
struct AgentLaunch {
  std::vector<std::string> argv;
  std::string user;                      // empty: the user the computer's commands run as
  std::vector<std::string> environment;  // NAME=value, on top of the computer's own
  std::string working_directory;         // empty: the computer's default
};

// How a stream ended: `broke` is empty when the process closed its output (it exited, or the
// computer stopped under it), and says why otherwise (the connection to the engine failed).
struct AgentStreamEnd {
  std::string broke;
};

struct AgentStreamEvents {
  // The process's stdout or stderr, in order; the view is valid during the call.
  std::function<void(vc_stream stream, std::string_view bytes)> output;
  // Once, last. Never after close().
  std::function<void(AgentStreamEnd end)> ended;
};

// A started process with its stdin attached.
class AgentStream {
 public:
  // Destroying an open stream closes it (without the kill).
  virtual ~AgentStream() = default;
  // Bytes for the process's stdin, in order.
  virtual void write(std::string bytes) = 0;
  // Ends the stream: the process's stdin is closed (where the engine can close it alone), no
  // event follows. `kill` also ends the process's group, for a process that is stuck.
  virtual void close(bool kill) = 0;
  // After `ended`: the process's exit code when the engine can tell, nullopt when not.
  virtual void exit_code(std::function<void(std::optional<std::int64_t>)> done) = 0;
};

// One computer, as the channels reach it.
class AgentComputer {
 public:
  virtual ~AgentComputer() = default;

  virtual const std::string& computer_id() const = 0;

  // What tells this incarnation of the computer from the next (a container id, a pod uid): a
  // program copied in, or found unusable, in one is not known to be so in another.
  virtual std::string incarnation() const = 0;

  // Starts the process, stdin attached. `started` runs once: with the stream, whose events
  // follow, or with why the process could not start (VC_E_COMPUTER_STOPPED when the computer
  // is not running; the engine's failure). A program the engine cannot run may fail here or
  // end at once with the engine's words on its output: the channels expect both. `scope`
  // cancels the attempt.
  virtual void start(const AgentLaunch& launch, const std::shared_ptr<CancelScope>& scope,
                     AgentStreamEvents events,
                     Callback<std::unique_ptr<AgentStream>> started) = 0;

  // Copies the exec agent (`program`: the executable's bytes) into the computer at
  // kExecAgentPathInComputer (exec_agent_program.h), root's, mode 0555, replacing what is
  // there. VC_E_UNSUPPORTED when the computer cannot hold it (a read-only root), with why.
  virtual void install_exec_agent(std::string program, const std::shared_ptr<CancelScope>& scope,
                                  Callback<Done> done) = 0;
};

}  // namespace vc::agent_channel
