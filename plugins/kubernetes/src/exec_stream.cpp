// exec_stream.cpp — pods/exec over the channel protocol: the target, stdout/stderr/status
// demultiplexing, stdin with its close signal, resize, and the one on_exit.
// Thread rule: see exec_stream.h; members marked [loop] there run on the loop thread.
#include "exec_stream.h"

namespace vc::kubernetes {
namespace {

// stdin goes out in messages of at most this many bytes, so that one large write does not hold
// the connection (and the kubelet's copy) for a long time.
constexpr std::size_t kStdinMessageBytes = 32 * 1024;
// A Status is a few hundred bytes; more is not a Status.
constexpr std::size_t kMaxStatusBytes = 64 * 1024;

const char* flag(bool value) { return value ? "true" : "false"; }

// What is wrong with a request before anything is sent, or "".
std::string request_problem(const ExecRequest& request) {
  if (request.namespace_name.empty()) return "no namespace was given";
  if (request.pod.empty()) return "no pod was given";
  if (request.command.empty()) return "no command was given";
  return "";
}

}  // namespace

std::string exec_target(const ExecRequest& request) {
  std::string target = "/api/v1/namespaces/" + escape_url_component(request.namespace_name) +
                       "/pods/" + escape_url_component(request.pod) + "/exec?";
  for (const auto& argument : request.command) {
    target += "command=" + escape_url_component(argument) + "&";
  }
  if (!request.container.empty()) {
    target += "container=" + escape_url_component(request.container) + "&";
  }
  target += std::string("stdin=") + flag(request.with_stdin) + "&stdout=" +
            flag(request.with_stdout) + "&stderr=" + flag(request.with_stderr) +
            "&tty=" + flag(request.tty);
  return target;
}

std::string exec_subject(const ExecRequest& request) {
  std::string subject = "Cannot run a command in pod " + bounded_quote(request.pod, 253);
  if (!request.container.empty()) {
    subject += " (container " + bounded_quote(request.container, 63) + ")";
  }
  return subject + " of namespace " + bounded_quote(request.namespace_name, 63);
}

ExecStream::ExecStream(ApiLoop& loop, ExecRequest request, ExecCallbacks callbacks)
    : loop_(loop), request_(std::move(request)), callbacks_(std::move(callbacks)) {}

std::shared_ptr<ExecStream> ExecStream::start(ApiLoop& loop, const ApiEndpoint& endpoint,
                                              ExecRequest request, ExecCallbacks callbacks) {
  auto self = std::make_shared<ExecStream>(loop, std::move(request), std::move(callbacks));
  ApiWebSocketRequest upgrade;
  upgrade.target = exec_target(self->request_);
  upgrade.subprotocols = {std::string(kChannelProtocolV5), std::string(kChannelProtocolV4)};
  upgrade.subject = exec_subject(self->request_);
  upgrade.connect_timeout = self->request_.connect_timeout;
  upgrade.idle_timeout = self->request_.idle_timeout;
  upgrade.max_queued_bytes = self->request_.max_queued_stdin_bytes;

  ApiWebSocketHandlers handlers;
  handlers.on_open = [self](const std::string& subprotocol) { self->on_open(subprotocol); };
  handlers.on_message = [self](std::string_view message) { self->on_message(message); };
  handlers.on_drained = [self] {
    if (self->callbacks_.on_stdin_drained) self->callbacks_.on_stdin_drained();
  };
  handlers.on_end = [self](ApiExpected<void> end) { self->on_end(std::move(end)); };
  self->socket_ = ApiWebSocket::create(loop, endpoint, std::move(upgrade), std::move(handlers));

  if (!self->request_.with_stdin) self->stdin_closed_ = true;
  if (const std::string problem = request_problem(self->request_); !problem.empty()) {
    loop.post([self, problem] {
      self->socket_->end(self->socket_->failure(ApiErrorKind::invalid, problem));
    });
    return self;
  }
  self->socket_->connect();
  return self;
}

WriteAdmission ExecStream::write_stdin(std::string bytes) {
  if (stdin_closed_) return WriteAdmission::ended;
  std::vector<std::string> messages;
  for (std::size_t at = 0; at < bytes.size(); at += kStdinMessageBytes) {
    messages.push_back(encode_channel_message(
        kStdinChannel, std::string_view(bytes).substr(at, kStdinMessageBytes)));
  }
  if (messages.empty()) return WriteAdmission::queued;
  return socket_->send(std::move(messages));
}

void ExecStream::close_stdin() {
  if (stdin_closed_.exchange(true) || !request_.with_stdin) return;
  loop_.post([self = shared_from_this()] {
    if (self->open_) {
      self->send_close_signal();
    } else {
      self->close_signal_pending_ = true;
    }
  });
}

void ExecStream::send_close_signal() {
  // A v4 server has no close signal (it would ignore the message); see exec_stream.h.
  if (protocol() == ChannelProtocol::v5) {
    socket_->send(encode_close_signal(kStdinChannel), /*bounded=*/false);
  }
}

void ExecStream::resize(std::uint16_t columns, std::uint16_t rows) {
  if (!request_.tty) return;
  socket_->send(encode_resize_message(columns, rows), /*bounded=*/false);
}

void ExecStream::cancel() { socket_->cancel(); }

void ExecStream::pause_output() { socket_->pause_receiving(); }

void ExecStream::resume_output() { socket_->resume_receiving(); }

std::optional<ChannelProtocol> ExecStream::protocol() const {
  const int value = protocol_.load();
  if (value < 0) return std::nullopt;
  return static_cast<ChannelProtocol>(value);
}

void ExecStream::on_open(const std::string& subprotocol) {
  const auto chosen = channel_protocol_named(subprotocol);
  if (!chosen) {
    socket_->end(socket_->failure(
        ApiErrorKind::protocol,
        "the server chose the stream protocol \"" + bounded_quote(subprotocol, 60) +
            "\", not one of those offered (" + std::string(kChannelProtocolV5) + ", " +
            std::string(kChannelProtocolV4) + ")"));
    return;
  }
  protocol_ = static_cast<int>(*chosen);
  open_ = true;
  if (callbacks_.on_open) callbacks_.on_open(*chosen);
  if (close_signal_pending_) send_close_signal();
}

void ExecStream::on_message(std::string_view message) {
  const auto decoded = decode_channel_message(message);
  if (!decoded) return;
  switch (decoded->channel) {
    case kStdoutChannel:
      if (!decoded->payload.empty() && callbacks_.on_stdout) callbacks_.on_stdout(decoded->payload);
      return;
    case kStderrChannel:
      if (!decoded->payload.empty() && callbacks_.on_stderr) callbacks_.on_stderr(decoded->payload);
      return;
    case kStatusChannel:
      break;
    default:
      return;  // nothing else comes from a server
  }
  if (decoded->payload.empty()) return;  // "the stream is open", when nothing else is
  if (status_.size() + decoded->payload.size() > kMaxStatusBytes) {
    socket_->end(socket_->failure(ApiErrorKind::protocol,
                                  "the command's exit status is longer than a Status can be"));
    return;
  }
  status_.append(decoded->payload);
  // The status comes last, after all output: once it is whole, nothing is left to wait for.
  auto parsed = parse_exec_status(status_);
  if (parsed) {
    exit_ = std::move(parsed).value();
    socket_->end(ApiExpected<void>());
  }
}

void ExecStream::on_end(ApiExpected<void> end) {
  auto on_exit = std::move(callbacks_.on_exit);
  if (exit_) {
    if (on_exit) on_exit(*exit_);
  } else if (!end) {
    if (on_exit) on_exit(end.error());
  } else if (!status_.empty()) {
    auto parsed = parse_exec_status(status_);
    if (on_exit) {
      on_exit(socket_->failure(ApiErrorKind::protocol,
                               "the command's exit status is not usable: " + parsed.error()));
    }
  } else if (on_exit) {
    on_exit(socket_->failure(ApiErrorKind::protocol,
                             "the connection ended before the command's exit status arrived"));
  }
  // No callback after on_exit; the stream no longer needs them (they may own this stream).
  callbacks_ = {};
}

}  // namespace vc::kubernetes
