// agent_connection.cpp — starting one agent process and waiting for its greeting.
#include <vc_agent_channel/agent_connection.h>

#include <utility>

namespace vc::agent_channel {
namespace {

constexpr std::size_t kMaxStderrLine = 4096;

}  // namespace

std::shared_ptr<AgentConnection> AgentConnection::make(std::shared_ptr<AgentComputer> computer,
                                                       ChannelClock& clock, sdk::HostLog log,
                                                       AgentConnectionOptions options,
                                                       AgentConnectionHandlers handlers) {
  return std::make_shared<AgentConnection>(std::move(computer), clock, log, std::move(options),
                                           std::move(handlers));
}

AgentConnection::AgentConnection(std::shared_ptr<AgentComputer> computer, ChannelClock& clock,
                                 sdk::HostLog log, AgentConnectionOptions options,
                                 AgentConnectionHandlers handlers)
    : computer_(std::move(computer)), clock_(clock), log_(log), options_(std::move(options)),
      handlers_(std::move(handlers)) {}

AgentConnection::~AgentConnection() {
  if (stream_) stream_->close(/*kill=*/false);
}

void AgentConnection::start(AgentLaunch launch) {
  if (state_ != State::kClosed) return;
  state_ = State::kStarting;
  scope_ = CancelScope::make();
  early_output_.clear();
  stderr_line_.clear();

  std::weak_ptr<AgentConnection> weak = weak_from_this();
  auto scope = scope_;
  AgentStreamEvents events;
  events.output = [weak, scope](vc_stream stream, std::string_view bytes) {
    auto self = weak.lock();
    if (self && scope == self->scope_) self->on_output(stream, bytes);
  };
  events.ended = [weak, scope](AgentStreamEnd end) {
    auto self = weak.lock();
    if (self && scope == self->scope_) self->on_stream_end(end);
  };
  greeting_timer_ = clock_.make_timer();
  greeting_timer_->start(options_.greeting_deadline, [weak, scope] {
    auto self = weak.lock();
    if (self && scope == self->scope_) self->on_greeting_deadline();
  });
  computer_->start(launch, scope_, std::move(events),
                   [weak, scope](Expected<std::unique_ptr<AgentStream>> stream) {
                     auto self = weak.lock();
                     if (!self || scope != self->scope_) {
                       // Closed meanwhile: the process is not wanted any more.
                       if (stream.ok()) stream.value()->close(/*kill=*/true);
                       return;
                     }
                     self->on_started(std::move(stream));
                   });
}

void AgentConnection::on_started(Expected<std::unique_ptr<AgentStream>> stream) {
  if (!stream.ok()) {
    StartFailure failure;
    failure.refused = stream.error();
    close(/*kill=*/false);
    return handlers_.on_start_failed(failure);
  }
  stream_ = std::move(stream.value());
}

void AgentConnection::greeted() {
  if (state_ != State::kStarting) return;
  state_ = State::kOpen;
  greeting_timer_.reset();
  early_output_.clear();
}

void AgentConnection::write(std::string bytes) {
  if (stream_) stream_->write(std::move(bytes));
}

void AgentConnection::close(bool kill) {
  if (scope_) scope_->cancel();
  scope_.reset();
  if (stream_) {
    auto stream = std::move(stream_);
    stream->close(kill);
  }
  greeting_timer_.reset();
  state_ = State::kClosed;
}

void AgentConnection::keep_early(std::string_view bytes) {
  if (state_ != State::kStarting || early_output_.size() >= options_.early_output_kept) return;
  early_output_.append(bytes.substr(0, options_.early_output_kept - early_output_.size()));
}

void AgentConnection::on_output(vc_stream stream, std::string_view bytes) {
  keep_early(bytes);
  if (stream == VC_STREAM_STDERR) return on_stderr(bytes);
  handlers_.on_stdout(bytes);
}

void AgentConnection::on_stderr(std::string_view bytes) {
  stderr_line_.append(bytes);
  std::size_t start = 0;
  for (std::size_t newline; (newline = stderr_line_.find('\n', start)) != std::string::npos;
       start = newline + 1) {
    log_stderr_line(std::string_view(stderr_line_).substr(start, newline - start));
  }
  stderr_line_.erase(0, start);
  if (stderr_line_.size() > kMaxStderrLine) {
    log_stderr_line(stderr_line_);
    stderr_line_.clear();
  }
}

void AgentConnection::log_stderr_line(std::string_view line) {
  if (line.empty()) return;
  const std::string text = options_.log_name + ": " + std::string(line);
  if (options_.stderr_at_info) {
    log_.info(text);
  } else {
    log_.debug(text);
  }
}

void AgentConnection::on_stream_end(const AgentStreamEnd& end) {
  if (state_ == State::kOpen) {
    stream_.reset();
    close(/*kill=*/false);
    return handlers_.on_ended(end);
  }
  // Before the greeting: the program is missing or cannot run here. The engine says why in
  // the stream (Docker), in the stream's failure (Podman refuses the start itself), or only
  // through the exit code (127 no such file, 126 not executable).
  StartFailure failure;
  failure.said = early_output_;
  if (!end.broke.empty()) failure.said += (failure.said.empty() ? "" : "; ") + end.broke;
  greeting_timer_.reset();
  if (!stream_) {
    close(/*kill=*/false);
    return handlers_.on_start_failed(failure);
  }
  std::weak_ptr<AgentConnection> weak = weak_from_this();
  auto scope = scope_;
  stream_->exit_code([weak, scope, failure](std::optional<std::int64_t> code) mutable {
    auto self = weak.lock();
    if (!self || scope != self->scope_) return;
    failure.exit_code = code;
    self->close(/*kill=*/false);
    self->handlers_.on_start_failed(failure);
  });
}

void AgentConnection::on_greeting_deadline() {
  if (state_ != State::kStarting) return;
  const std::string said = early_output_;
  close(/*kill=*/true);
  handlers_.on_greeting_timeout(said);
}

}  // namespace vc::agent_channel
