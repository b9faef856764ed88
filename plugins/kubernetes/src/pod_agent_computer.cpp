// pod_agent_computer.cpp — agent processes in a pod through the API's exec.
#include "pod_agent_computer.h"

#include <deque>
#include <optional>
#include <utility>

#include <vc_agent_channel/exec_agent_program.h>

#include "computer_objects.h"
#include "message_text.h"

namespace vc::kubernetes {
namespace {

using agent_channel::AgentStreamEnd;
using agent_channel::AgentStreamEvents;
using agent_channel::OpFailure;

// $1: working directory (empty: the container's), $2: user (empty: the container's), then the
// program and its arguments.
constexpr const char* kLaunchPrologue =
    "echo \"$$\" >&2; d=$1; u=$2; shift 2; "
    "if [ -n \"$d\" ]; then cd -- \"$d\" || exit 126; fi; "
    "if [ -n \"$u\" ]; then exec runuser -u \"$u\" -- \"$@\"; fi; exec \"$@\"";
// $1: the program's size in bytes; stdin: the program.
constexpr const char* kInstallScript =
    "set -e; umask 022; mkdir -p /.mcp-virtual-computer; "
    "t=/.mcp-virtual-computer/vc-exec-agent.$$; head -c \"$1\" > \"$t\"; "
    "s=$(wc -c < \"$t\"); if [ \"$s\" -ne \"$1\" ]; then rm -f \"$t\"; "
    "echo \"only $s of $1 bytes arrived\" >&2; exit 1; fi; "
    "chmod 0555 \"$t\"; mv -f \"$t\" /.mcp-virtual-computer/vc-exec-agent";
// The agents' streams carry whole commands' stdin; what the socket has not taken yet waits
// here, written in pieces the stream's queue takes.
constexpr std::size_t kAgentStdinQueue = 16u << 20;
constexpr std::size_t kStdinPiece = 256u << 10;
// An install that moves no byte for this long has failed (the pod stopped answering).
constexpr std::chrono::seconds kInstallIdle{30};
constexpr std::size_t kInstallStderrKept = 1024;

// One agent process: the exec stream, its PID, stdin that waits for room.
class PodAgentStream final : public agent_channel::AgentStream,
                             public std::enable_shared_from_this<PodAgentStream> {
 public:
  PodAgentStream(AgentTransport& transport, std::string pod) : transport_(transport), pod_(std::move(pod)) {}

  void open(std::vector<std::string> argv, AgentStreamEvents events) {
    events_ = std::move(events);
    ExecRequest request;
    request.pod = pod_;
    request.container = kComputerContainer;
    request.command = std::move(argv);
    request.with_stdin = true;
    request.max_queued_stdin_bytes = kAgentStdinQueue;
    std::weak_ptr<PodAgentStream> weak = weak_from_this();
    ExecCallbacks callbacks;
    callbacks.on_stdout = [weak](std::string_view bytes) {
      if (auto self = weak.lock(); self && !self->closed_) self->events_.output(VC_STREAM_STDOUT, bytes);
    };
    callbacks.on_stderr = [weak](std::string_view bytes) {
      if (auto self = weak.lock(); self && !self->closed_) self->on_stderr(bytes);
    };
    callbacks.on_stdin_drained = [weak] {
      if (auto self = weak.lock()) self->flush();
    };
    callbacks.on_exit = [weak](ApiExpected<ExecExit> exit) {
      if (auto self = weak.lock()) self->on_exit(std::move(exit));
    };
    stream_ = transport_.start_exec(std::move(request), std::move(callbacks));
  }

  ~PodAgentStream() override { close(/*kill=*/false); }

  void write(std::string bytes) override {
    if (closed_ || !stream_) return;
    for (std::size_t at = 0; at < bytes.size(); at += kStdinPiece) {
      waiting_.push_back(bytes.substr(at, kStdinPiece));
    }
    flush();
  }

  void close(bool kill) override {
    if (closed_) return;
    closed_ = true;
    if (kill) kill_process_group();
    if (stream_) stream_->cancel();
    waiting_.clear();
  }

  void exit_code(std::function<void(std::optional<std::int64_t>)> done) override {
    done(exit_code_);
  }

 private:
  void flush() {
    while (!waiting_.empty() && !closed_) {
      const WriteAdmission admission = stream_->write_stdin(waiting_.front());
      if (admission == WriteAdmission::full) return;  // on_stdin_drained comes back here
      waiting_.pop_front();
    }
  }

  // The prologue's first stderr line is the PID; the rest is the program's.
  void on_stderr(std::string_view bytes) {
    if (!pid_done_) {
      const auto newline = bytes.find('\n');
      pid_.append(bytes.substr(0, std::min(newline, std::size_t{32} - std::min(pid_.size(), std::size_t{32}))));
      if (newline == std::string_view::npos) return;
      pid_done_ = true;
      bytes = bytes.substr(newline + 1);
    }
    if (!bytes.empty()) events_.output(VC_STREAM_STDERR, bytes);
  }

  void on_exit(ApiExpected<ExecExit> exit) {
    if (closed_) return;
    closed_ = true;
    AgentStreamEnd end;
    if (!exit) {
      end.broke = exit.error().message;
    } else if (exit.value().exit_code) {
      exit_code_ = *exit.value().exit_code;
    } else if (!exit.value().message.empty()) {
      end.broke = bounded_quote(exit.value().message);
    }
    if (events_.ended) events_.ended(end);
  }

  void kill_process_group() {
    if (!pid_done_ || pid_.empty() || pid_.find_first_not_of("0123456789") != std::string::npos) {
      return;
    }
    ExecRequest request;
    request.pod = pod_;
    request.container = kComputerContainer;
    // dash's kill takes no "--": a negative PID names the process group.
    request.command = {"/bin/sh", "-c",
                       "kill -KILL -\"$1\" 2>/dev/null; kill -KILL \"$1\" 2>/dev/null; true",
                       "vc-kill", pid_};
    // The API refuses an exec without any stream ("you must specify at least 1 of stdin,
    // stdout, stderr"): stderr is asked for, and dropped.
    request.with_stdout = false;
    request.with_stderr = true;
    (void)transport_.start_exec(std::move(request), ExecCallbacks{});
  }

  AgentTransport& transport_;
  const std::string pod_;
  AgentStreamEvents events_;
  std::shared_ptr<ExecStream> stream_;
  std::deque<std::string> waiting_;
  std::string pid_;
  bool pid_done_ = false;
  bool closed_ = false;
  std::optional<std::int64_t> exit_code_;
};

// The AgentStream handed to the channel: owns the shared stream object its callbacks reach.
class OwnedPodAgentStream final : public agent_channel::AgentStream {
 public:
  explicit OwnedPodAgentStream(std::shared_ptr<PodAgentStream> stream) : stream_(std::move(stream)) {}
  ~OwnedPodAgentStream() override { stream_->close(/*kill=*/false); }
  void write(std::string bytes) override { stream_->write(std::move(bytes)); }
  void close(bool kill) override { stream_->close(kill); }
  void exit_code(std::function<void(std::optional<std::int64_t>)> done) override {
    stream_->exit_code(std::move(done));
  }

 private:
  std::shared_ptr<PodAgentStream> stream_;
};

}  // namespace

std::vector<std::string> agent_launch_argv(const agent_channel::AgentLaunch& launch) {
  std::vector<std::string> argv = {"/bin/sh", "-c", kLaunchPrologue, "vc-agent",
                                   launch.working_directory, launch.user};
  if (!launch.environment.empty()) {
    argv.emplace_back("env");
    argv.insert(argv.end(), launch.environment.begin(), launch.environment.end());
  }
  argv.insert(argv.end(), launch.argv.begin(), launch.argv.end());
  return argv;
}

PodAgentComputer::PodAgentComputer(AgentTransport& transport, std::string computer_id)
    : transport_(transport), computer_id_(std::move(computer_id)) {}

void PodAgentComputer::target(std::string pod, std::string uid) {
  pod_ = std::move(pod);
  uid_ = std::move(uid);
}

void PodAgentComputer::start(
    const agent_channel::AgentLaunch& launch,
    const std::shared_ptr<agent_channel::CancelScope>& scope, AgentStreamEvents events,
    agent_channel::Callback<std::unique_ptr<agent_channel::AgentStream>> started) {
  if (pod_.empty()) {
    return started(OpFailure{VC_E_COMPUTER_STOPPED,
                             "Computer " + computer_id_ + " has no running pod.", nullptr});
  }
  if (scope && scope->cancelled()) return started(agent_channel::cancelled_failure());
  auto stream = std::make_shared<PodAgentStream>(transport_, pod_);
  stream->open(agent_launch_argv(launch), std::move(events));
  // The exec's upgrade is under way; a pod that refuses it ends the stream with the server's
  // words, which the channel reads as a start failure.
  started(std::unique_ptr<agent_channel::AgentStream>(
      std::make_unique<OwnedPodAgentStream>(std::move(stream))));
}

void PodAgentComputer::install_exec_agent(std::string program,
                                          const std::shared_ptr<agent_channel::CancelScope>& scope,
                                          agent_channel::Callback<agent_channel::Done> done) {
  if (pod_.empty()) {
    return done(OpFailure{VC_E_COMPUTER_STOPPED,
                          "Computer " + computer_id_ + " has no running pod.", nullptr});
  }
  struct Install {
    std::string stderr_text;
    agent_channel::Callback<agent_channel::Done> done;
  };
  auto install = std::make_shared<Install>();
  install->done = std::move(done);
  ExecRequest request;
  request.pod = pod_;
  request.container = kComputerContainer;
  request.command = {"/bin/sh", "-c", kInstallScript, "vc-install", std::to_string(program.size())};
  request.with_stdin = true;
  request.with_stdout = false;
  // The whole program is queued at once (with the channel byte of each message).
  request.max_queued_stdin_bytes = program.size() + (program.size() >> 8) + 4096;
  request.idle_timeout = kInstallIdle;
  ExecCallbacks callbacks;
  callbacks.on_stderr = [install](std::string_view bytes) {
    auto& kept = install->stderr_text;
    kept.append(bytes.substr(0, kInstallStderrKept - std::min(kInstallStderrKept, kept.size())));
  };
  callbacks.on_exit = [install, pod = pod_](ApiExpected<ExecExit> exit) {
    auto finish = std::move(install->done);
    if (!finish) return;
    if (!exit) {
      const vc_status status = exit.error().kind == ApiErrorKind::cancelled ? VC_E_CANCELLED
                                                                             : VC_E_UNAVAILABLE;
      return finish(OpFailure{status,
                              "Copying the exec agent into pod " + pod + " failed: " +
                                  exit.error().message,
                              nullptr});
    }
    if (exit.value().exit_code == 0) return finish(agent_channel::Done{});
    std::string why = printable_for_message(
        install->stderr_text.empty() ? exit.value().message : install->stderr_text);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    finish(OpFailure{VC_E_UNSUPPORTED,
                     "The exec agent could not be copied into pod " + pod + ": " + why,
                     nlohmann::json{{"code", "exec_agent.install_refused"}}});
  };
  auto stream = transport_.start_exec(std::move(request), std::move(callbacks));
  if (scope) scope->set_canceller([stream] { stream->cancel(); });
  if (stream->write_stdin(std::move(program)) == WriteAdmission::too_big) {
    stream->cancel();  // its on_exit reports the cancel; never the case with the bound above
  }
}

}  // namespace vc::kubernetes
