// api_session.cpp — the shared state of one API server's calls: pool, registry, counter.
// Thread rule: see api_session.h.
#include "api_session.h"

#include <algorithm>

#include <boost/beast/http/error.hpp>

namespace vc::kubernetes {

void HttpConnection::close() {
  boost::beast::get_lowest_layer(*stream).close();
}

bool is_http_syntax_error(const boost::system::error_code& error) {
  namespace http = boost::beast::http;
  return error.category() == http::make_error_code(http::error::bad_version).category() &&
         error != http::error::end_of_stream && error != http::error::partial_message &&
         error != http::error::need_more && error != http::error::need_buffer;
}

void ApiOperationHandle::cancel() const {
  if (loop_ == nullptr) return;
  if (loop_->on_loop_thread()) {
    if (auto operation = operation_.lock()) operation->abort();
    return;
  }
  loop_->post([operation = operation_] {
    if (auto alive = operation.lock()) alive->abort();
  });
}

ApiSession::ApiSession(ApiLoop& loop, ApiEndpoint endpoint, ServerUrl url,
                       ApiClientOptions options)
    : loop_(loop),
      endpoint_(std::move(endpoint)),
      url_(std::move(url)),
      options_(options),
      credentials_(loop, endpoint_, url_.text) {}

std::string ApiSession::host_header() const {
  const bool ipv6 = url_.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + url_.host + "]" : url_.host) + ":" + url_.port;
}

std::shared_ptr<HttpConnection> ApiSession::open_connection(
    const CredentialCache::Snapshot& snapshot, std::chrono::steady_clock::time_point deadline,
    std::function<bool()> cancelled, std::function<void(ApiExpected<void>)> done) {
  auto connection = std::make_shared<HttpConnection>();
  connection->tls = snapshot->tls;
  connection->stream = make_tls_stream(loop_.context(), *connection->tls);
  ConnectRequest request;
  request.url = url_;
  request.tls_server_name = endpoint_.tls_server_name;
  request.verify_peer = !endpoint_.insecure_skip_tls_verify;
  // A second past the deadline: the operation's own deadline timer ends it at the deadline, with
  // a sentence that names the call; this is a backstop.
  request.timeout = std::max(std::chrono::milliseconds(1),
                             std::chrono::duration_cast<std::chrono::milliseconds>(
                                 deadline - std::chrono::steady_clock::now())) +
                    std::chrono::seconds(1);
  request.cancelled = std::move(cancelled);
  async_connect_tls(connection->stream, std::move(request),
                    [self = shared_from_this(), done = std::move(done)](ApiExpected<void> result) {
                      if (result) ++self->connections_opened_;
                      done(std::move(result));
                    });
  return connection;
}

std::shared_ptr<HttpConnection> ApiSession::take_idle_connection(
    const boost::asio::ssl::context* tls) {
  const auto now = std::chrono::steady_clock::now();
  while (!idle_.empty()) {
    std::shared_ptr<HttpConnection> connection = std::move(idle_.back());
    idle_.pop_back();
    if (connection->tls.get() == tls && now - connection->idle_since < options_.max_idle_time) {
      connection->reused = true;
      return connection;
    }
    connection->close();
  }
  return nullptr;
}

void ApiSession::keep_idle_connection(std::shared_ptr<HttpConnection> connection) {
  if (shut_down_ || options_.max_idle_connections == 0) {
    connection->close();
    return;
  }
  if (idle_.size() >= options_.max_idle_connections) {
    idle_.front()->close();  // the oldest goes
    idle_.erase(idle_.begin());
  }
  connection->idle_since = std::chrono::steady_clock::now();
  idle_.push_back(std::move(connection));
}

void ApiSession::track(const std::shared_ptr<ApiOperation>& operation) {
  std::erase_if(in_flight_, [](const std::weak_ptr<ApiOperation>& tracked) {
    return tracked.expired();
  });
  in_flight_.push_back(operation);
  if (shut_down_) operation->abort();
}

void ApiSession::shut_down() {
  credentials_.stop();
  loop_.post([self = shared_from_this()] { self->end_everything(); });
}

void ApiSession::end_everything() {
  shut_down_ = true;
  for (auto& connection : idle_) connection->close();
  idle_.clear();
  auto operations = std::move(in_flight_);
  in_flight_.clear();
  for (auto& tracked : operations) {
    if (auto operation = tracked.lock()) operation->abort();
  }
}

}  // namespace vc::kubernetes
