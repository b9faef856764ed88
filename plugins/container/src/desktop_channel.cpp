// desktop_channel.cpp — one long-lived exec of the desktop agent, one JSON line per message.
#include "desktop_channel.h"

#include <algorithm>
#include <utility>

#include "computer_naming.h"
#include "helper_exec.h"
#include "process_group_kill.h"

namespace vc::container {
namespace {

constexpr std::chrono::seconds kReadyTimeout{10};
// A screenshot of a busy 1280x800 screen is at most a few MiB of base64; a line far beyond
// that is not the agent speaking.
constexpr std::size_t kMaxReplyLine = 48 * 1024 * 1024;
constexpr std::size_t kMaxStderrLine = 4096;
constexpr std::size_t kEarlyOutputKept = 2048;

bool mentions(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

}  // namespace

vc_status desktop_agent_status(std::string_view code) {
  if (code == "invalid_argument") return VC_E_INVALID_ARGUMENT;
  if (code == "not_found") return VC_E_NOT_FOUND;
  if (code == "unavailable") return VC_E_UNAVAILABLE;
  if (code == "timeout") return VC_E_TIMEOUT;
  return VC_E_FAILED;
}

std::chrono::milliseconds desktop_action_deadline(const nlohmann::json& request) {
  constexpr std::int64_t kBase = 30'000;
  constexpr std::int64_t kCap = 15 * 60'000;
  auto number = [&](const char* key, std::int64_t fallback) {
    auto it = request.find(key);
    if (it == request.end() || !it->is_number_integer()) return fallback;
    const std::int64_t value = it->get<std::int64_t>();
    return value < 0 ? fallback : std::min(value, kCap);
  };
  std::int64_t extra = number("timeout_ms", 0) + number("hold_ms", 0) * number("repeat", 1);
  auto text = request.find("text");
  if (text != request.end() && text->is_string()) {
    extra += static_cast<std::int64_t>(text->get_ref<const std::string&>().size()) *
             (number("delay_ms", 2) + 2);
  }
  return std::chrono::milliseconds(kBase + std::min(extra, kCap));
}

DesktopChannel::DesktopChannel(BackendContext& ctx, std::string computer_id)
    : ctx_(ctx), computer_id_(std::move(computer_id)), container_(container_name(computer_id_)) {}

DesktopChannel::~DesktopChannel() {
  if (stream_) stream_->abort();
}

std::uint64_t DesktopChannel::send(nlohmann::json request, std::chrono::milliseconds deadline,
                                   Callback<nlohmann::json> done) {
  const std::uint64_t ticket = next_ticket_++;
  request["id"] = ticket;
  Pending pending;
  pending.action = request.value("action", std::string());
  pending.line = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  pending.deadline = deadline;
  pending.done = std::move(done);
  pending.timer = std::make_unique<engine::LoopTimer>(ctx_.loop);
  std::weak_ptr<DesktopChannel> weak = weak_from_this();
  pending.timer->start(deadline, [weak, ticket] {
    if (auto self = weak.lock()) self->on_deadline(ticket);
  });
  pending_.emplace(ticket, std::move(pending));

  if (state_ == State::kClosed) {
    start_agent();
  } else if (state_ == State::kOpen) {
    write_pending();
  }
  return ticket;
}

void DesktopChannel::withdraw(std::uint64_t ticket) {
  auto it = pending_.find(ticket);
  if (it == pending_.end()) return;
  auto done = std::move(it->second.done);
  pending_.erase(it);
  done(cancelled_failure());
}

void DesktopChannel::close(const OpFailure& why) { reset(why, /*kill_agent=*/false); }

void DesktopChannel::start_agent() {
  state_ = State::kStarting;
  scope_ = CancelScope::make();
  stdout_buffer_.clear();
  stderr_buffer_.clear();
  early_output_.clear();
  nlohmann::json body = {{"AttachStdin", true},
                         {"AttachStdout", true},
                         {"AttachStderr", true},
                         {"Tty", false},
                         {"User", kDesktopAgentUser},
                         {"Env", {"DISPLAY=:99", "HOME=/home/computer", "USER=computer"}},
                         {"WorkingDir", "/workspace"},
                         {"Cmd", {kDesktopAgentPath}}};
  std::weak_ptr<DesktopChannel> weak = weak_from_this();
  auto scope = scope_;
  create_exec(ctx_, scope_, container_, body, [weak, scope](Expected<std::string> exec_id) {
    auto self = weak.lock();
    if (!self || scope != self->scope_) return;  // closed meanwhile
    self->on_exec_created(std::move(exec_id));
  });
}

void DesktopChannel::on_exec_created(Expected<std::string> exec_id) {
  if (!exec_id.ok()) {
    OpFailure failure = exec_id.error();
    if (failure.status == VC_E_COMPUTER_STOPPED) {
      failure.status = VC_E_UNAVAILABLE;
      failure.message = "Computer " + computer_id_ +
                        " is not running, so its desktop cannot be driven. " + failure.message;
    }
    return reset(failure, /*kill_agent=*/false);
  }
  exec_id_ = exec_id.value();
  std::weak_ptr<DesktopChannel> weak = weak_from_this();
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
  ready_timer_ = std::make_unique<engine::LoopTimer>(ctx_.loop);
  ready_timer_->start(kReadyTimeout, [weak, scope] {
    auto self = weak.lock();
    if (!self || scope != self->scope_ || self->state_ != State::kStarting) return;
    self->reset(OpFailure{VC_E_TIMEOUT,
                          "The desktop agent of computer " + self->computer_id_ +
                              " did not become ready within 10 s." +
                              (self->early_output_.empty() ? ""
                                                           : " It said: " + self->early_output_),
                          nlohmann::json{{"code", "desktop.agent_not_ready"}}},
                /*kill_agent=*/true);
  });
}

void DesktopChannel::on_output(engine::StreamKind kind, std::string_view bytes) {
  const bool is_stdout = kind == engine::StreamKind::kStdout;
  std::string& buffer = is_stdout ? stdout_buffer_ : stderr_buffer_;
  if (state_ == State::kStarting && early_output_.size() < kEarlyOutputKept) {
    early_output_.append(bytes.substr(0, kEarlyOutputKept - early_output_.size()));
  }
  buffer.append(bytes);
  std::size_t start = 0;
  for (;;) {
    const std::size_t newline = buffer.find('\n', start);
    if (newline == std::string::npos) break;
    std::string_view line(buffer.data() + start, newline - start);
    if (is_stdout) {
      on_stdout_line(line);
    } else {
      on_stderr_line(line);
    }
    if (state_ == State::kClosed) return;  // a line reset the channel (buffer cleared)
    start = newline + 1;
  }
  buffer.erase(0, start);
  const std::size_t cap = is_stdout ? kMaxReplyLine : kMaxStderrLine;
  if (buffer.size() > cap) {
    if (!is_stdout) {
      on_stderr_line(buffer);
      buffer.clear();
      return;
    }
    reset(OpFailure{VC_E_FAILED,
                    "The desktop agent of computer " + computer_id_ +
                        " sent a reply line longer than 48 MiB; the agent was restarted.",
                    nlohmann::json{{"code", "desktop.protocol_error"}}},
          /*kill_agent=*/true);
  }
}

void DesktopChannel::on_stdout_line(std::string_view line) {
  if (line.empty()) return;
  nlohmann::json message = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!message.is_object()) {
    ctx_.log.warn("desktop agent of " + computer_id_ + " wrote a line that is not a JSON object");
    return;
  }
  if (state_ == State::kStarting) {
    auto ready = message.find("ready");
    if (ready != message.end() && ready->is_boolean() && ready->get<bool>()) on_ready();
    return;
  }
  on_reply(message);
}

void DesktopChannel::on_stderr_line(std::string_view line) {
  if (line.empty()) return;
  ctx_.log.info("desktop agent of " + computer_id_ + ": " + std::string(line));
}

void DesktopChannel::on_ready() {
  state_ = State::kOpen;
  ready_timer_.reset();
  early_output_.clear();
  write_pending();
}

void DesktopChannel::write_pending() {
  for (auto& [ticket, pending] : pending_) {
    if (pending.written) continue;
    pending.written = true;
    stream_->write_stdin(pending.line);
    pending.line.clear();
    pending.line.shrink_to_fit();
  }
}

void DesktopChannel::on_reply(const nlohmann::json& reply) {
  auto id = reply.find("id");
  if (id == reply.end() || !id->is_number_unsigned()) {
    if (reply.contains("error") && reply["error"].is_string()) {
      ctx_.log.warn("desktop agent of " + computer_id_ +
                    " refused a line: " + reply["error"].get<std::string>());
    }
    return;
  }
  auto it = pending_.find(id->get<std::uint64_t>());
  if (it == pending_.end()) return;  // withdrawn, or timed out
  auto done = std::move(it->second.done);
  const std::string action = it->second.action;
  pending_.erase(it);

  auto ok = reply.find("ok");
  if (ok != reply.end() && ok->is_boolean() && ok->get<bool>()) {
    auto result = reply.find("result");
    done(result != reply.end() && result->is_object() ? *result : nlohmann::json::object());
    return;
  }
  const std::string code = reply.value("code", std::string("failed"));
  std::string message = reply.contains("error") && reply["error"].is_string()
                            ? reply["error"].get<std::string>()
                            : "Desktop action '" + action + "' failed.";
  done(OpFailure{desktop_agent_status(code), std::move(message),
                 nlohmann::json{{"code", "desktop." + code}}});
}

void DesktopChannel::on_stream_end(engine::Result<void> end) {
  stream_.reset();
  if (state_ == State::kStarting) {
    // The engine says why in the stream (Docker), in its refusal of the start, or only through
    // the exit code (127 no such file, 126 not executable, 255 no such user).
    // Podman refuses the start itself (HTTP 500 "unable to find user ...").
    if (!end.ok()) early_output_ += end.error().message;
    std::weak_ptr<DesktopChannel> weak = weak_from_this();
    auto scope = scope_;
    return inspect_exec(ctx_, scope_, exec_id_, 5, [weak, scope](Expected<ExecState> state) {
      auto self = weak.lock();
      if (!self || scope != self->scope_) return;
      const std::optional<std::int64_t> code =
          state.ok() ? state.value().exit_code : std::optional<std::int64_t>();
      self->reset(self->start_failure(self->early_output_, code), /*kill_agent=*/false);
    });
  }
  std::string why = end.ok() ? "its output ended" : end.error().message;
  reset(OpFailure{VC_E_UNAVAILABLE,
                  "The desktop agent of computer " + computer_id_ + " stopped (" + why +
                      "), for example because the computer restarted; the next desktop action "
                      "starts it again.",
                  nlohmann::json{{"code", "desktop.agent_stopped"}, {"retryable", true}}},
        /*kill_agent=*/false);
}

OpFailure DesktopChannel::start_failure(const std::string& engine_text,
                                        std::optional<std::int64_t> exit_code) const {
  const bool cannot_run = exit_code == 126 || exit_code == 127 || exit_code == 255;
  if (cannot_run || mentions(engine_text, "no such file") || mentions(engine_text, "not found") ||
      mentions(engine_text, "unable to find user") || mentions(engine_text, "no matching entries")) {
    return OpFailure{VC_E_UNSUPPORTED,
                     "Computer " + computer_id_ +
                         " has no desktop agent (" + kDesktopAgentPath +
                         " as user computer): the desktop tools need a computer made from the "
                         "bundled desktop image.",
                     nlohmann::json{{"code", "desktop.no_agent"}}};
  }
  return OpFailure{VC_E_UNAVAILABLE,
                   "The desktop agent of computer " + computer_id_ + " ended before it was ready." +
                       (engine_text.empty() ? std::string() : " It said: " + engine_text),
                   nlohmann::json{{"code", "desktop.agent_not_ready"}}};
}

void DesktopChannel::on_deadline(std::uint64_t ticket) {
  auto it = pending_.find(ticket);
  if (it == pending_.end()) return;
  auto done = std::move(it->second.done);
  const std::string action = it->second.action;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(it->second.deadline);
  pending_.erase(it);
  done(OpFailure{VC_E_TIMEOUT,
                 "The desktop action '" + action + "' did not finish within " +
                     std::to_string(seconds.count()) +
                     " s; the desktop agent was restarted.",
                 nlohmann::json{{"code", "desktop.timeout"}}});
  // The agent handles one request at a time: one that overran blocks every other.
  reset(OpFailure{VC_E_UNAVAILABLE,
                  "The desktop agent of computer " + computer_id_ +
                      " was restarted because an earlier action hung; try again.",
                  nlohmann::json{{"code", "desktop.agent_restarted"}, {"retryable", true}}},
        /*kill_agent=*/true);
}

void DesktopChannel::fail_all(const OpFailure& why) {
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [ticket, request] : pending) request.done(why);
}

void DesktopChannel::reset(const OpFailure& why, bool kill_agent) {
  if (kill_agent && !exec_id_.empty() && !ctx_.shutting_down) {
    kill_exec_process_group(ctx_, exec_id_, container_, [](KillPath) {});
  }
  if (scope_) scope_->cancel();
  scope_.reset();
  if (stream_) {
    stream_->close_stdin();
    stream_->abort();
    stream_.reset();
  }
  ready_timer_.reset();
  exec_id_.clear();
  stdout_buffer_.clear();
  stderr_buffer_.clear();
  state_ = State::kClosed;
  fail_all(why);
}

}  // namespace vc::container
