// exec_agent_channel.cpp — starting, installing and talking to one computer's exec agent.
#include <vc_agent_channel/exec_agent_channel.h>

#include <utility>

#include <vc_agent_channel/exec_agent_program.h>

namespace vc::agent_channel {
namespace {

OpFailure unusable_failure(const std::string& computer_id, const std::string& reason) {
  return OpFailure{VC_E_UNSUPPORTED,
                   "The exec agent cannot run in computer " + computer_id + ": " + reason,
                   nlohmann::json{{"code", "exec_agent.unusable"}}};
}

}  // namespace

std::shared_ptr<ExecAgentChannel> ExecAgentChannel::make(std::shared_ptr<AgentComputer> computer,
                                                         ChannelClock& clock, sdk::HostLog log,
                                                         Options options) {
  auto channel = std::make_shared<ExecAgentChannel>(std::move(computer), clock, log,
                                                    std::move(options));
  channel->connect();
  return channel;
}

ExecAgentChannel::ExecAgentChannel(std::shared_ptr<AgentComputer> computer, ChannelClock& clock,
                                   sdk::HostLog log, Options options)
    : computer_(std::move(computer)), clock_(clock), log_(log), options_(std::move(options)) {}

ExecAgentChannel::~ExecAgentChannel() {
  if (install_scope_) install_scope_->cancel();
}

void ExecAgentChannel::connect() {
  std::weak_ptr<ExecAgentChannel> weak = weak_from_this();
  AgentConnectionOptions options;
  options.log_name = "exec agent of " + computer_id();
  options.early_output_kept = 1024;
  AgentConnectionHandlers handlers;
  handlers.on_stdout = [weak](std::string_view bytes) {
    if (auto self = weak.lock()) self->on_stdout(bytes);
  };
  handlers.on_start_failed = [weak](const StartFailure& failure) {
    if (auto self = weak.lock()) self->on_start_failed(failure);
  };
  handlers.on_greeting_timeout = [weak](const std::string& said) {
    if (auto self = weak.lock()) {
      self->became_unusable("it did not say hello within 10 s" +
                            (said.empty() ? std::string(".") : "; it said: " + said));
    }
  };
  handlers.on_ended = [weak](const AgentStreamEnd& end) {
    if (auto self = weak.lock()) self->on_ended(end);
  };
  connection_ = AgentConnection::make(computer_, clock_, log_, std::move(options),
                                      std::move(handlers));
}

void ExecAgentChannel::open(Callback<Done> ready) {
  if (state_ == State::kOpen) return ready(Done{});
  if (!unusable_in_.empty() && unusable_in_ == computer_->incarnation()) {
    return ready(unusable_failure(computer_id(), unusable_reason_));
  }
  waiting_.push_back(std::move(ready));
  if (state_ != State::kClosed) return;  // an attempt is under way
  installed_this_open_ = false;
  // In an incarnation this channel has not yet seen an agent answer in (a new computer, or the
  // first command since the server started), the program is copied in first: cheaper than
  // starting a missing program and reading the engine's refusal.
  if (answered_in_ != computer_->incarnation()) return install("first use in this computer");
  start_agent();
}

void ExecAgentChannel::start_agent() {
  state_ = State::kStarting;
  reader_ = exec_agent::FrameReader();
  // No user: the agent runs as the user commands run as, so its children are exactly what an
  // engine exec would start.
  AgentLaunch launch;
  launch.argv = {kExecAgentPathInComputer};
  connection_->start(std::move(launch));
}

void ExecAgentChannel::on_stdout(std::string_view bytes) {
  reader_.feed(bytes);
  while (auto frame = reader_.next()) {
    on_frame(std::move(*frame));
    if (connection_->state() == AgentConnection::State::kClosed) return;  // a frame closed it
  }
  if (reader_.error().empty()) return;
  if (state_ == State::kStarting) {
    // Before the hello, what is not a frame is the engine saying why it could not start the
    // program ("OCI runtime exec failed: ... no such file or directory"): not an agent yet.
    StartFailure failure;
    failure.said = connection_->early_output();
    connection_->close(/*kill=*/false);
    return on_start_failed(failure);
  }
  const std::string why = "the exec agent of computer " + computer_id() + " sent " +
                          reader_.error() + ", which is not its protocol";
  log_.warn(why + "; the agent is restarted");
  reset(why, /*kill=*/true);
}

void ExecAgentChannel::on_frame(exec_agent::Frame frame) {
  using exec_agent::FrameType;
  if (state_ == State::kStarting) {
    if (frame.type == FrameType::kHello) return on_hello(frame.payload);
    log_.warn("exec agent of " + computer_id() + " spoke before its hello; ignored");
    return;
  }
  if (frame.id != 0) return on_command_frame(std::move(frame));
  if (frame.type == FrameType::kError) {
    log_.warn("exec agent of " + computer_id() + ": " + frame.payload);
  }
}

void ExecAgentChannel::on_command_frame(exec_agent::Frame frame) {
  using exec_agent::FrameType;
  auto it = commands_.find(frame.id);
  if (it == commands_.end()) {
    log_.debug("exec agent of " + computer_id() + " sent a frame for command " +
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
    connection_->close(/*kill=*/false);  // its stdin closed: the old agent ends by itself
    if (installed_this_open_) {
      return became_unusable("after being replaced it still reports version " + version +
                             ", not " + std::string(exec_agent_version()));
    }
    return install("the agent in it is version " + version);
  }
  state_ = State::kOpen;
  connection_->greeted();
  answered_in_ = computer_->incarnation();
  log_.debug("exec agent " + version + " ready in computer " + computer_id());
  finish_open(Done{});
}

// The agent ended before its hello: the program is missing or cannot run here. Copy it in
// once; when it still fails, the engine's own words say why.
void ExecAgentChannel::on_start_failed(const StartFailure& failure) {
  if (failure.refused) {
    state_ = State::kClosed;
    return finish_open(*failure.refused);
  }
  if (!installed_this_open_) {
    return install(failure.said.empty() ? "the program is not in it" : failure.said);
  }
  std::string reason = "it ended before saying hello";
  if (failure.exit_code) reason += " (exit code " + std::to_string(*failure.exit_code) + ")";
  if (!failure.said.empty()) reason += "; it said: " + failure.said;
  became_unusable(reason);
}

void ExecAgentChannel::on_ended(const AgentStreamEnd& end) {
  if (state_ != State::kOpen) return;
  reset(end.broke.empty() ? "the exec agent's stream ended (the computer stopped or restarted, "
                            "or the agent was killed)"
                          : "the exec agent's stream broke: " + end.broke,
        /*kill=*/false);
}

void ExecAgentChannel::install(const std::string& reason) {
  state_ = State::kInstalling;
  installed_this_open_ = true;
  auto program = options_.program ? options_.program()
                                  : Expected<std::string>(OpFailure{
                                        VC_E_UNSUPPORTED, "no exec agent program is configured",
                                        nullptr});
  if (!program.ok()) return became_unusable(program.error().message);
  log_.debug("Copying the exec agent " + std::string(exec_agent_version()) + " into computer " +
             computer_id() + " (" + reason + ")");
  install_scope_ = CancelScope::make();
  std::weak_ptr<ExecAgentChannel> weak = weak_from_this();
  auto scope = install_scope_;
  computer_->install_exec_agent(
      std::move(program.value()), install_scope_, [weak, scope](Expected<Done> installed) {
        auto self = weak.lock();
        if (!self || scope != self->install_scope_) return;
        self->install_scope_.reset();
        if (installed.ok()) return self->start_agent();
        if (installed.error().status == VC_E_UNSUPPORTED) {
          return self->became_unusable(installed.error().message);
        }
        self->state_ = State::kClosed;
        self->finish_open(installed.error());
      });
}

void ExecAgentChannel::became_unusable(const std::string& reason) {
  state_ = State::kClosed;
  connection_->close(/*kill=*/false);
  unusable_in_ = computer_->incarnation();
  unusable_reason_ = reason;
  log_.warn("The exec agent cannot run in computer " + computer_id() + ": " + reason +
            (options_.falls_back ? " Its commands go through the engine's exec instead." : ""));
  finish_open(unusable_failure(computer_id(), reason));
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
  if (state_ == State::kOpen) connection_->write(std::move(bytes));
}

void ExecAgentChannel::reset(const std::string& why, bool kill) {
  connection_->close(kill);
  if (install_scope_) install_scope_->cancel();
  install_scope_.reset();
  state_ = State::kClosed;
  auto commands = std::move(commands_);
  commands_.clear();
  for (auto& [id, events] : commands) {
    if (events.lost) events.lost(why);
  }
  finish_open(OpFailure{VC_E_UNAVAILABLE, "The exec agent of computer " + computer_id() +
                                              " was stopped before it answered: " + why + ".",
                        nlohmann::json{{"code", "exec_agent.stopped"}}});
}

}  // namespace vc::agent_channel
