// port_forward_stream.cpp — pods/portforward over the channel protocol: the target, the port
// prefixes, data and error channels, and the one on_close.
// Thread rule: see port_forward_stream.h; members marked [loop] there run on the loop thread.
#include "port_forward_stream.h"

#include <cctype>

namespace vc::kubernetes {
namespace {

// Data goes out in messages of at most this many bytes (see exec_stream.cpp).
constexpr std::size_t kDataMessageBytes = 32 * 1024;
// The server's error text is one sentence; keep a little more, never unbounded.
constexpr std::size_t kMaxErrorBytes = 4 * 1024;
// The one port of the request: its data and error channels.
constexpr std::uint8_t kDataChannel = port_data_channel(0);
constexpr std::uint8_t kErrorChannel = port_error_channel(0);

std::string request_problem(const PortForwardRequest& request) {
  if (request.namespace_name.empty()) return "no namespace was given";
  if (request.pod.empty()) return "no pod was given";
  if (request.port == 0) return "port 0 is not a port";
  return "";
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

}  // namespace

std::string port_forward_target(const PortForwardRequest& request) {
  return "/api/v1/namespaces/" + escape_url_component(request.namespace_name) + "/pods/" +
         escape_url_component(request.pod) + "/portforward?ports=" + std::to_string(request.port);
}

std::string port_forward_subject(const PortForwardRequest& request) {
  return "Cannot forward port " + std::to_string(request.port) + " of pod " +
         bounded_quote(request.pod, 253) + " in namespace " +
         bounded_quote(request.namespace_name, 63);
}

PortForwardStream::PortForwardStream(PortForwardRequest request, PortForwardCallbacks callbacks)
    : request_(std::move(request)),
      callbacks_(std::move(callbacks)),
      data_prefix_(request_.port),
      error_prefix_(request_.port) {}

std::shared_ptr<PortForwardStream> PortForwardStream::start(ApiLoop& loop,
                                                            const ApiEndpoint& endpoint,
                                                            PortForwardRequest request,
                                                            PortForwardCallbacks callbacks) {
  auto self = std::make_shared<PortForwardStream>(std::move(request), std::move(callbacks));
  ApiWebSocketRequest upgrade;
  upgrade.target = port_forward_target(self->request_);
  upgrade.subprotocols = {std::string(kChannelProtocolV4)};
  upgrade.subject = port_forward_subject(self->request_);
  upgrade.connect_timeout = self->request_.connect_timeout;
  upgrade.idle_timeout = self->request_.idle_timeout;
  upgrade.max_queued_bytes = self->request_.max_queued_bytes;

  ApiWebSocketHandlers handlers;
  handlers.on_open = [self](const std::string&) {
    if (self->callbacks_.on_open) self->callbacks_.on_open();
  };
  handlers.on_message = [self](std::string_view message) { self->on_message(message); };
  handlers.on_drained = [self] {
    if (self->callbacks_.on_drained) self->callbacks_.on_drained();
  };
  handlers.on_end = [self](ApiExpected<void> end) { self->on_end(std::move(end)); };
  self->socket_ = ApiWebSocket::create(loop, endpoint, std::move(upgrade), std::move(handlers));

  if (const std::string problem = request_problem(self->request_); !problem.empty()) {
    loop.post([self, problem] {
      self->socket_->end(self->socket_->failure(ApiErrorKind::invalid, problem));
    });
    return self;
  }
  self->socket_->connect();
  return self;
}

WriteAdmission PortForwardStream::write(std::string bytes) {
  std::vector<std::string> messages;
  for (std::size_t at = 0; at < bytes.size(); at += kDataMessageBytes) {
    messages.push_back(encode_channel_message(
        kDataChannel, std::string_view(bytes).substr(at, kDataMessageBytes)));
  }
  if (messages.empty()) return WriteAdmission::queued;
  return socket_->send(std::move(messages));
}

void PortForwardStream::close() { socket_->close(); }

void PortForwardStream::cancel() { socket_->cancel(); }

void PortForwardStream::pause_receiving() { socket_->pause_receiving(); }

void PortForwardStream::resume_receiving() { socket_->resume_receiving(); }

void PortForwardStream::on_message(std::string_view message) {
  const auto decoded = decode_channel_message(message);
  if (!decoded) return;
  if (decoded->channel != kDataChannel && decoded->channel != kErrorChannel) return;
  auto& prefix = decoded->channel == kDataChannel ? data_prefix_ : error_prefix_;
  const auto bytes = prefix.feed(decoded->payload);
  if (!bytes) {
    socket_->end(socket_->failure(ApiErrorKind::protocol, bytes.error()));
    return;
  }
  if (bytes.value().empty()) return;
  if (decoded->channel == kDataChannel) {
    if (callbacks_.on_data) callbacks_.on_data(bytes.value());
  } else if (error_text_.size() < kMaxErrorBytes) {
    error_text_.append(bytes.value().substr(0, kMaxErrorBytes - error_text_.size()));
  }
}

void PortForwardStream::on_end(ApiExpected<void> end) {
  auto on_close = std::move(callbacks_.on_close);
  const std::string error_text = trimmed(error_text_);
  if (!error_text.empty() && (end || end.error().kind != ApiErrorKind::cancelled)) {
    // The server's own words say best why the connection to the pod's port ended.
    if (on_close) on_close(socket_->failure(ApiErrorKind::server, error_text));
  } else if (on_close) {
    on_close(std::move(end));
  }
  callbacks_ = {};
}

}  // namespace vc::kubernetes
