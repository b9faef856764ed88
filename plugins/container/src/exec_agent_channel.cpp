// exec_agent_channel.cpp — starting, installing and talking to one computer's exec agent.
#include "exec_agent_channel.h"

#include <utility>

#include "computer_naming.h"
#include "exec_agent_install.h"
#include "helper_exec.h"
#include "process_group_kill.h"

namespace vc::container {
namespace {

constexpr std::chrono::seconds kHelloTimeout{10};
constexpr std::size_t kEarlyOutputKept = 1024;
constexpr std::size_t kMaxStderrLine = 4096;

OpFailure unusable_failure(const std::string& computer_id, const std::string& reason) {
  return OpFailure{VC_E_UNSUPPORTED,
                   "The exec agent cannot run in computer " + computer_id + ": " + reason,
                   nlohmann::json{{"code", "exec_agent.unusable"}}};
}

}  // namespace

ExecAgentChannel::ExecAgentChannel(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                                   std::function<Expected<std::string>()> archive)
    : ctx_(ctx), record_(record), make_archive_(std::move(archive)),
      computer_id_(record->computer_id), container_(container_name(computer_id_)) {}

ExecAgentChannel::~ExecAgentChannel() {
  if (stream_) stream_->abort();
}

void ExecAgentChannel::open(Callback<Done> ready) {
  if (state_ == State::kOpen) return ready(Done{});
  if (!unusable_container_.empty() && unusable_container_ == container_id()) {
    return ready(unusable_failure(computer_id_, unusable_reason_));
  }
  waiting_.push_back(std::move(ready));
  if (state_ != State::kClosed) return;  // an attempt is under way
  installed_this_open_ = false;
  // In a container this channel has not yet seen an agent answer in (a new computer, or the
  // first command since the server started), the program is copied in first: cheaper than
  // starting a missing program and reading the engine's refusal.
  if (answered_in_container_ != container_id()) return install("first use in this container");
  start_agent();
}

void ExecAgentChannel::start_agent() {
  state_ = State::kStarting;
  scope_ = CancelScope::make();
  reader_ = exec_agent::FrameReader();
  stderr_line_.clear();
  early_output_.clear();
  // No User: the agent runs as the user commands run as, so its children are exactly what an
  // engine exec would start.
  nlohmann::json body = {{"AttachStdin", true},
                         {"AttachStdout", true},
                         {"AttachStderr", true},
                         {"Tty", false},
                         {"Cmd", {kExecAgentPathInComputer}}};
  std::weak_ptr<ExecAgentChannel> weak = weak_from_this();
  auto scope = scope_;
  create_exec(ctx_, scope_, container_, body, [weak, scope](Expected<std::string> exec_id) {
    auto self = weak.lock();
    if (!self || scope != self->scope_) return;  // reset meanwhile
    self->on_exec_created(std::move(exec_id));
  });
}

void ExecAgentChannel::on_exec_created(Expected<std::string> exec_id) {
  if (!exec_id.ok()) {
    state_ = State::kClosed;
    scope_.reset();
    return finish_open(exec_id.error());
  }
  exec_id_ = exec_id.value();
  if (auto record = record_.lock()) record->saw_running(ctx_.client.connection_losses());
  std::weak_ptr<ExecAgentChannel> weak = weak_from_this();
  auto scope = scope_;
  engine::ExecStartOptions options;
  options.tty = false;
  engine::ExecStreamCallbacks callbacks;
  callbacks.on_output = [weak, scope](engine::StreamKind kind, std::string_view bytes) {
    auto self = weak.lock();
    if (self && scope == self->scope_) self->on_output(kind, bytes);
  };
  callbacks.on_end = [weak, scope](engine::Result<void> end) {
    auto self = weak.lock();
    if (self && scope == self->scope_) self->on_stream_end(std::move(end));
  };
  stream_ = ctx_.client.start_exec(exec_id_, options, std::move(callbacks));
  hello_timer_ = std::make_unique<engine::LoopTimer>(ctx_.loop);
  hello_timer_->start(kHelloTimeout, [weak, scope] {
    auto self = weak.lock();
    if (!self || scope != self->scope_ || self->state_ != State::kStarting) return;
    self->close_stream(/*kill=*/true);
    self->became_unusable("it did not say hello within 10 s" +
                          (self->early_output_.empty() ? std::string(".")
                                                       : "; it said: " + self->early_output_));
  });
}

void ExecAgentChannel::on_output(engine::StreamKind kind, std::string_view bytes) {
  if (kind == engine::StreamKind::kStderr) return on_stderr(bytes);
  if (state_ == State::kStarting && early_output_.size() < kEarlyOutputKept) {
    // Until the hello, stdout may be the engine's own words ("exec failed: ...").
    early_output_.append(bytes.substr(0, kEarlyOutputKept - early_output_.size()));
  }
  reader_.feed(bytes);
  while (auto frame = reader_.next()) {
    on_frame(std::move(*frame));
    if (!stream_) return;  // a frame closed the channel
  }
  if (!reader_.error().empty()) {
    if (state_ == State::kStarting) {
      // Before the hello, what is not a frame is the engine saying why it could not start the
      // program ("OCI runtime exec failed: ... no such file or directory"): not an agent yet.
      close_stream(/*kill=*/false);
      return on_start_failed(early_output_);
    }
    const std::string why = "the exec agent of computer " + computer_id_ + " sent " +
                            reader_.error() + ", which is not its protocol";
    ctx_.log.warn(why + "; the agent is restarted");
    reset(why, /*kill=*/true);
  }
}

void ExecAgentChannel::on_frame(exec_agent::Frame frame) {
  using exec_agent::FrameType;
  if (state_ == State::kStarting) {
    if (frame.type == FrameType::kHello) return on_hello(frame.payload);
    ctx_.log.warn("exec agent of " + computer_id_ + " spoke before its hello; ignored");
    return;
  }
  if (frame.id == 0) {
    if (frame.type == FrameType::kError) {
      ctx_.log.warn("exec agent of " + computer_id_ + ": " + frame.payload);
    }
    return;
  }
  auto it = commands_.find(frame.id);
  if (it == commands_.end()) {
    ctx_.log.debug("exec agent of " + computer_id_ + " sent a frame for command " +
                   std::to_string(frame.id) + ", which is not running; dropped");
    return;
  }
  switch (frame.type) {
    case FrameType::kStdout:
      if (it->second.output) it->second.output(VC_STREAM_STDOUT, frame.payload);
      return;
    case FrameType::kStderr:
      if (it->second.output) it->second.output(VC_STREAM_STDERR, frame.payload);
      return;
    case FrameType::kExit: {
      auto events = std::move(it->second);
      commands_.erase(it);
      auto exit = parse_agent_exit(frame.payload);
      if (!exit) {
        if (events.lost) events.lost("the exec agent's exit frame is not a JSON object");
        return;
      }
      if (events.exited) events.exited(*exit);
      return;
    }
    case FrameType::kError: {
      auto events = std::move(it->second);
      commands_.erase(it);
      if (events.refused) events.refused(agent_error_message(frame.payload));
      return;
    }
    default:
      return;  // kStarted carries nothing the result needs; plugin-bound types only
  }
}

void ExecAgentChannel::on_hello(const std::string& payload) {
  const auto hello = parse_agent_hello(payload);
  const std::string version = hello && !hello->version.empty() ? hello->version : "(none)";
  const bool same_protocol = hello && hello->protocol == exec_agent::kProtocolVersion;
  if (version != exec_agent_version() || !same_protocol) {
    close_stream(/*kill=*/false);  // its stdin closed: the old agent ends by itself
    if (installed_this_open_) {
      return became_unusable("after being replaced it still reports version " + version +
                             ", not " + std::string(exec_agent_version()));
    }
    return install("the agent in it is version " + version);
  }
  state_ = State::kOpen;
  hello_timer_.reset();
  early_output_.clear();
  answered_in_container_ = container_id();
  ctx_.log.debug("exec agent " + version + " ready in computer " + computer_id_);
  finish_open(Done{});
}

void ExecAgentChannel::on_stderr(std::string_view bytes) {
  if (state_ == State::kStarting && early_output_.size() < kEarlyOutputKept) {
    early_output_.append(bytes.substr(0, kEarlyOutputKept - early_output_.size()));
  }
  stderr_line_.append(bytes);
  std::size_t start = 0;
  for (std::size_t newline; (newline = stderr_line_.find('\n', start)) != std::string::npos;
       start = newline + 1) {
    if (newline > start) {
      ctx_.log.debug("exec agent of " + computer_id_ + ": " +
                     stderr_line_.substr(start, newline - start));
    }
  }
  stderr_line_.erase(0, start);
  if (stderr_line_.size() > kMaxStderrLine) {
    ctx_.log.debug("exec agent of " + computer_id_ + ": " + stderr_line_);
    stderr_line_.clear();
  }
}

void ExecAgentChannel::on_stream_end(engine::Result<void> end) {
  if (!stream_) return;  // a stream this channel closed itself: already dealt with
  stream_.reset();
  hello_timer_.reset();
  if (state_ == State::kStarting) {
    std::string said = early_output_;
    if (!end.ok()) said += (said.empty() ? "" : "; ") + end.error().message;
    return on_start_failed(said);
  }
  if (state_ != State::kOpen) return;
  reset(end.ok() ? "the exec agent's stream ended (the computer stopped or restarted, or the "
                   "agent was killed)"
                 : "the exec agent's stream broke: " + end.error().message,
        /*kill=*/false);
}

// The exec ended before the hello: the program is missing or cannot run here. Copy it in once;
// when it still fails, the engine's own words say why.
void ExecAgentChannel::on_start_failed(const std::string& what) {
  if (!installed_this_open_) {
    return install(what.empty() ? "the program is not in it" : what);
  }
  std::weak_ptr<ExecAgentChannel> weak = weak_from_this();
  auto scope = scope_;
  inspect_exec(ctx_, scope_, exec_id_, 5, [weak, scope, what](Expected<ExecState> state) {
    auto self = weak.lock();
    if (!self || scope != self->scope_) return;
    std::string reason = "it ended before saying hello";
    if (state.ok() && state.value().exit_code) {
      reason += " (exit code " + std::to_string(*state.value().exit_code) + ")";
    }
    if (!what.empty()) reason += "; it said: " + what;
    self->became_unusable(reason);
  });
}

void ExecAgentChannel::install(const std::string& reason) {
  state_ = State::kInstalling;
  installed_this_open_ = true;
  hello_timer_.reset();
  auto archive = make_archive_();
  if (!archive.ok()) return became_unusable(archive.error().message);
  ctx_.log.debug("Copying the exec agent " + std::string(exec_agent_version()) +
                 " into computer " + computer_id_ + " (" + reason + ")");
  if (!scope_) scope_ = CancelScope::make();
  std::weak_ptr<ExecAgentChannel> weak = weak_from_this();
  auto scope = scope_;
  install_exec_agent(
      ctx_, scope_, container_, std::move(archive.value()),
      [weak, scope](Expected<Done> installed) {
        auto self = weak.lock();
        if (!self || scope != self->scope_) return;
        if (installed.ok()) return self->start_agent();
        if (installed.error().status == VC_E_UNSUPPORTED) {
          return self->became_unusable(installed.error().message);
        }
        self->state_ = State::kClosed;
        self->scope_.reset();
        self->finish_open(installed.error());
      });
}

void ExecAgentChannel::became_unusable(const std::string& reason) {
  state_ = State::kClosed;
  scope_.reset();
  exec_id_.clear();
  unusable_container_ = container_id();
  unusable_reason_ = reason;
  const bool falls_back = ctx_.options.exec_agent == ExecAgentMode::kAuto;
  ctx_.log.warn("The exec agent cannot run in computer " + computer_id_ + ": " + reason +
                (falls_back ? " Its commands go through the engine's exec instead." : ""));
  finish_open(unusable_failure(computer_id_, reason));
}

std::string ExecAgentChannel::container_id() const {
  auto record = record_.lock();
  // Before any create or attach recorded the id, the name stands for the container.
  return record && !record->container_id.empty() ? record->container_id : container_;
}

void ExecAgentChannel::finish_open(const Expected<Done>& outcome) {
  auto waiting = std::move(waiting_);
  waiting_.clear();
  for (auto& ready : waiting) ready(outcome);
}

std::uint32_t ExecAgentChannel::start_command(const nlohmann::json& start,
                                              std::string_view stdin_bytes,
                                              CommandEvents events) {
  using exec_agent::FrameType;
  std::uint32_t id = next_id_++;
  if (next_id_ == 0) next_id_ = 1;  // 0 is the channel's own id
  commands_[id] = std::move(events);
  std::string frames = exec_agent::encode_frame(FrameType::kStart, id, start.dump());
  if (start.value("stdin", false)) {
    for (std::size_t at = 0; at < stdin_bytes.size(); at += exec_agent::kChunkSize) {
      exec_agent::append_frame(frames, FrameType::kStdin, id,
                               stdin_bytes.substr(at, exec_agent::kChunkSize));
    }
    exec_agent::append_frame(frames, FrameType::kStdinEnd, id, {});
  }
  write(std::move(frames));
  return id;
}

void ExecAgentChannel::cancel_command(std::uint32_t id) {
  if (commands_.count(id) == 0) return;
  write(exec_agent::encode_frame(exec_agent::FrameType::kCancel, id));
}

void ExecAgentChannel::forget(std::uint32_t id) { commands_.erase(id); }

void ExecAgentChannel::write(std::string bytes) {
  if (stream_ && state_ == State::kOpen) stream_->write_stdin(std::move(bytes));
}

void ExecAgentChannel::close_stream(bool kill) {
  if (kill && !exec_id_.empty() && !ctx_.shutting_down) {
    kill_exec_process_group(ctx_, exec_id_, container_, [](KillPath) {});
  }
  if (stream_) {
    stream_->close_stdin();
    stream_->abort();
    stream_.reset();
  }
  hello_timer_.reset();
}

void ExecAgentChannel::reset(const std::string& why, bool kill) {
  close_stream(kill);
  if (scope_) scope_->cancel();
  scope_.reset();
  exec_id_.clear();
  state_ = State::kClosed;
  auto commands = std::move(commands_);
  commands_.clear();
  for (auto& [id, events] : commands) {
    if (events.lost) events.lost(why);
  }
  finish_open(OpFailure{VC_E_UNAVAILABLE, "The exec agent of computer " + computer_id_ +
                                              " was stopped before it answered: " + why + ".",
                        nlohmann::json{{"code", "exec_agent.stopped"}}});
}

}  // namespace vc::container
