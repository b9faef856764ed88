// desktop_channel.cpp — one long-lived desktop agent process, one JSON line per message.
#include <vc_agent_channel/desktop_channel.h>

#include <algorithm>
#include <utility>

namespace vc::agent_channel {
namespace {

constexpr std::chrono::seconds kReadyTimeout{10};
// A screenshot of a busy 1280x800 screen is at most a few MiB of base64; a line far beyond
// that is not the agent speaking.
constexpr std::size_t kMaxReplyLine = 48 * 1024 * 1024;
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

std::shared_ptr<DesktopChannel> DesktopChannel::make(std::shared_ptr<AgentComputer> computer,
                                                     ChannelClock& clock, sdk::HostLog log) {
  auto channel = std::make_shared<DesktopChannel>(std::move(computer), clock, log);
  channel->connect();
  return channel;
}

DesktopChannel::DesktopChannel(std::shared_ptr<AgentComputer> computer, ChannelClock& clock,
                               sdk::HostLog log)
    : computer_(std::move(computer)), clock_(clock), log_(log) {}

DesktopChannel::~DesktopChannel() = default;

void DesktopChannel::connect() {
  std::weak_ptr<DesktopChannel> weak = weak_from_this();
  AgentConnectionOptions options;
  options.log_name = "desktop agent of " + computer_id();
  options.greeting_deadline = kReadyTimeout;
  options.early_output_kept = kEarlyOutputKept;
  options.stderr_at_info = true;
  AgentConnectionHandlers handlers;
  handlers.on_stdout = [weak](std::string_view bytes) {
    if (auto self = weak.lock()) self->on_stdout(bytes);
  };
  handlers.on_start_failed = [weak](const StartFailure& failure) {
    if (auto self = weak.lock()) self->on_start_failed(failure);
  };
  handlers.on_greeting_timeout = [weak](const std::string& said) {
    auto self = weak.lock();
    if (!self) return;
    self->reset(OpFailure{VC_E_TIMEOUT,
                          "The desktop agent of computer " + self->computer_id() +
                              " did not become ready within 10 s." +
                              (said.empty() ? "" : " It said: " + said),
                          nlohmann::json{{"code", "desktop.agent_not_ready"}}},
                /*kill_agent=*/true);
  };
  handlers.on_ended = [weak](const AgentStreamEnd& end) {
    if (auto self = weak.lock()) self->on_ended(end);
  };
  connection_ = AgentConnection::make(computer_, clock_, log_, std::move(options),
                                      std::move(handlers));
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
  pending.timer = clock_.make_timer();
  std::weak_ptr<DesktopChannel> weak = weak_from_this();
  pending.timer->start(deadline, [weak, ticket] {
    if (auto self = weak.lock()) self->on_deadline(ticket);
  });
  pending_.emplace(ticket, std::move(pending));

  if (connection_->state() == AgentConnection::State::kClosed) {
    start_agent();
  } else if (connection_->state() == AgentConnection::State::kOpen) {
    write_pending();
  }
  return ticket;
}

void DesktopChannel::withdraw(std::uint64_t ticket) {
  auto it = pending_.find(ticket);
  if (it == pending_.end()) return;
  auto done = std::move(it->second.done);
  const bool in_flight = it->second.written;
  const std::string action = it->second.action;
  pending_.erase(it);
  done(cancelled_failure());
  if (!in_flight) return;
  // The agent works on one request at a time: a cancelled one left running (typing a long
  // text) would go on acting on the desktop and hold up every later action. Ending the agent's
  // process group stops it now; the next action starts a new agent.
  log_.info("The desktop agent of computer " + computer_id() + " was ended to stop a cancelled '" +
            action + "'.");
  reset(OpFailure{VC_E_UNAVAILABLE,
                  "The desktop agent of computer " + computer_id() +
                      " was restarted to stop a cancelled '" + action + "'; try again.",
                  nlohmann::json{{"code", "desktop.agent_restarted"}, {"retryable", true}}},
        /*kill_agent=*/true);
}

void DesktopChannel::close(const OpFailure& why) { reset(why, /*kill_agent=*/false); }

void DesktopChannel::start_agent() {
  stdout_buffer_.clear();
  AgentLaunch launch;
  launch.argv = {kDesktopAgentPath};
  launch.user = kDesktopAgentUser;
  launch.environment = {"DISPLAY=:99", "HOME=/home/computer", "USER=computer"};
  launch.working_directory = "/workspace";
  connection_->start(std::move(launch));
}

void DesktopChannel::on_start_failed(const StartFailure& failure) {
  if (failure.refused) {
    OpFailure refused = *failure.refused;
    if (refused.status == VC_E_COMPUTER_STOPPED) {
      refused.status = VC_E_UNAVAILABLE;
      refused.message = "Computer " + computer_id() +
                        " is not running, so its desktop cannot be driven. " + refused.message;
    }
    return reset(refused, /*kill_agent=*/false);
  }
  reset(start_failure(failure), /*kill_agent=*/false);
}

void DesktopChannel::on_stdout(std::string_view bytes) {
  stdout_buffer_.append(bytes);
  std::size_t start = 0;
  for (;;) {
    const std::size_t newline = stdout_buffer_.find('\n', start);
    if (newline == std::string::npos) break;
    on_stdout_line(std::string_view(stdout_buffer_.data() + start, newline - start));
    if (connection_->state() == AgentConnection::State::kClosed) return;  // a line reset it
    start = newline + 1;
  }
  stdout_buffer_.erase(0, start);
  if (stdout_buffer_.size() > kMaxReplyLine) {
    reset(OpFailure{VC_E_FAILED,
                    "The desktop agent of computer " + computer_id() +
                        " sent a reply line longer than 48 MiB; the agent was restarted.",
                    nlohmann::json{{"code", "desktop.protocol_error"}}},
          /*kill_agent=*/true);
  }
}

void DesktopChannel::on_stdout_line(std::string_view line) {
  if (line.empty()) return;
  nlohmann::json message = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!message.is_object()) {
    log_.warn("desktop agent of " + computer_id() + " wrote a line that is not a JSON object");
    return;
  }
  if (connection_->state() == AgentConnection::State::kStarting) {
    auto ready = message.find("ready");
    if (ready != message.end() && ready->is_boolean() && ready->get<bool>()) on_ready();
    return;
  }
  on_reply(message);
}

void DesktopChannel::on_ready() {
  connection_->greeted();
  write_pending();
}

void DesktopChannel::write_pending() {
  for (auto& [ticket, pending] : pending_) {
    if (pending.written) continue;
    pending.written = true;
    connection_->write(std::move(pending.line));
    pending.line = std::string();
  }
}
void DesktopChannel::on_reply(const nlohmann::json& reply) {
  auto id = reply.find("id");
  if (id == reply.end() || !id->is_number_unsigned()) {
    if (reply.contains("error") && reply["error"].is_string()) {
      log_.warn("desktop agent of " + computer_id() +
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

void DesktopChannel::on_ended(const AgentStreamEnd& end) {
  const std::string why = end.broke.empty() ? "its output ended" : end.broke;
  reset(OpFailure{VC_E_UNAVAILABLE,
                  "The desktop agent of computer " + computer_id() + " stopped (" + why +
                      "), for example because the computer restarted; the next desktop action "
                      "starts it again.",
                  nlohmann::json{{"code", "desktop.agent_stopped"}, {"retryable", true}}},
        /*kill_agent=*/false);
}

// The engine's words, or only the exit code (127 no such file, 126 not executable, 255 no such
// user), tell a computer without the agent from an agent that failed.
OpFailure DesktopChannel::start_failure(const StartFailure& failure) const {
  const std::string& engine_text = failure.said;
  const auto exit_code = failure.exit_code;
  const bool cannot_run = exit_code == 126 || exit_code == 127 || exit_code == 255;
  if (cannot_run || mentions(engine_text, "no such file") || mentions(engine_text, "not found") ||
      mentions(engine_text, "unable to find user") || mentions(engine_text, "no matching entries") ||
      mentions(engine_text, "does not exist")) {
    return OpFailure{VC_E_UNSUPPORTED,
                     "Computer " + computer_id() +
                         " has no desktop agent (" + kDesktopAgentPath +
                         " as user computer): the desktop tools need a computer made from the "
                         "bundled desktop image.",
                     nlohmann::json{{"code", "desktop.no_agent"}}};
  }
  return OpFailure{VC_E_UNAVAILABLE,
                   "The desktop agent of computer " + computer_id() + " ended before it was ready." +
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
                  "The desktop agent of computer " + computer_id() +
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
  connection_->close(kill_agent);
  stdout_buffer_.clear();
  fail_all(why);
}

}  // namespace vc::agent_channel
