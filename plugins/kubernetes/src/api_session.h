// api_session.h — what every call to one API server shares: the loop, the server's URL, the
// cached credentials, the idle keep-alive connections, the operations in flight (so that closing
// the client ends them) and a count of the connections opened.
//
// ApiClient (REST calls) and watch() (api_watch.h) are built on it; so can other streams to the
// same server. An operation registers with track(); a handle cancels it from any thread.
// Connections: REST calls take an idle one that was made with the same TLS context or open a new
// one; watches and streams always open their own and never give it back.
//
// Thread rule: the accessors on any thread; the connection pool, track() and open_connection()
// on the loop thread; shut_down() on the owner's thread (not the loop's). Objects that live on
// the loop hold the session by shared_ptr, so it lives until the last of them ends.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/beast/core/flat_buffer.hpp>

#include "api_connection.h"
#include "api_endpoint.h"
#include "api_error.h"
#include "api_loop.h"
#include "credential_cache.h"

namespace vc::kubernetes {

struct ApiClientOptions {
  // How long a REST call may take from request() to its answer, retries included.
  std::chrono::milliseconds request_timeout{30000};
  // Keep-alive connections kept for reuse; 0 closes each after its answer.
  std::size_t max_idle_connections = 4;
  // An idle connection older than this is closed rather than reused (servers and proxies drop
  // idle connections after a while; reusing one then costs a retry).
  std::chrono::seconds max_idle_time{90};
  // An answer with a larger body is refused (kind protocol): nothing the plugin reads is that big.
  std::size_t max_response_bytes = 16 * 1024 * 1024;
};

// A TLS connection to the server and the buffer its reads use. `tls` is declared before
// `stream` so that the context outlives the stream made with it.
struct HttpConnection {
  std::shared_ptr<boost::asio::ssl::context> tls;
  std::shared_ptr<TlsStream> stream;
  boost::beast::flat_buffer buffer;
  std::chrono::steady_clock::time_point idle_since;
  bool reused = false;  // it came from the idle pool: it may have been closed by the server

  // [loop-thread] Closes the socket; pending operations complete with operation_aborted. The
  // object must live until they have.
  void close();
};

// True for an answer Beast's parser could not read as HTTP (a bad status line, chunk, header
// too long); false for the ends of a connection (end_of_stream, partial_message) and others.
bool is_http_syntax_error(const boost::system::error_code& error);

// A call or stream in flight, as the session and handles see it.
class ApiOperation {
 public:
  virtual ~ApiOperation() = default;
  // [loop-thread] Ends the operation with kind cancelled, unless it has ended already. Its
  // callback is posted to the loop, never run inside abort().
  virtual void abort() = 0;
};

// Cancels one operation from any thread; empty handles and ended operations ignore cancel().
class ApiOperationHandle {
 public:
  ApiOperationHandle() = default;
  ApiOperationHandle(ApiLoop& loop, std::weak_ptr<ApiOperation> operation)
      : loop_(&loop), operation_(std::move(operation)) {}

  // [any-thread] On the loop thread the operation ends before cancel() returns (its callback
  // follows, posted); from another thread it ends as soon as the loop gets to it.
  void cancel() const;

 private:
  ApiLoop* loop_ = nullptr;
  std::weak_ptr<ApiOperation> operation_;
};

class ApiSession : public std::enable_shared_from_this<ApiSession> {
 public:
  // `url` is `endpoint.server` taken apart (parse_server_url); endpoint.credentials not null.
  ApiSession(ApiLoop& loop, ApiEndpoint endpoint, ServerUrl url, ApiClientOptions options);

  ApiLoop& loop() const { return loop_; }
  const ServerUrl& url() const { return url_; }
  const ApiEndpoint& endpoint() const { return endpoint_; }
  const ApiClientOptions& options() const { return options_; }
  CredentialCache& credentials() { return credentials_; }
  // "127.0.0.1:6443", "[::1]:6443": the Host header's value.
  std::string host_header() const;
  // [any-thread] Connections whose TLS handshake succeeded, since the session began.
  std::size_t connections_opened() const { return connections_opened_.load(); }

  // [loop-thread] A new connection made with `snapshot`'s TLS context; `done` is called once
  // when it is ready or has failed (see async_connect_tls). The caller ends the attempt at its
  // `deadline` (closing the connection); the connection's own limit is a second later.
  std::shared_ptr<HttpConnection> open_connection(
      const CredentialCache::Snapshot& snapshot, std::chrono::steady_clock::time_point deadline,
      std::function<bool()> cancelled, std::function<void(ApiExpected<void>)> done);

  // [loop-thread] The most recently idle connection made with `tls`, or null. Connections made
  // with another context, or idle too long, are closed on the way.
  std::shared_ptr<HttpConnection> take_idle_connection(const boost::asio::ssl::context* tls);
  // [loop-thread] Keeps a connection whose last answer left it reusable; closes it when the pool
  // is full or the session is shut down.
  void keep_idle_connection(std::shared_ptr<HttpConnection> connection);

  // [loop-thread] Remembers `operation` so that shut_down() can end it.
  void track(const std::shared_ptr<ApiOperation>& operation);

  // [owner-thread] Stops the credential cache, then (on the loop) ends every tracked operation
  // with kind cancelled and closes the idle connections. Idempotent.
  void shut_down();

 private:
  void end_everything();

  ApiLoop& loop_;
  const ApiEndpoint endpoint_;
  const ServerUrl url_;
  const ApiClientOptions options_;
  CredentialCache credentials_;
  std::atomic<std::size_t> connections_opened_{0};
  // Loop thread only:
  std::vector<std::shared_ptr<HttpConnection>> idle_;
  std::vector<std::weak_ptr<ApiOperation>> in_flight_;
  bool shut_down_ = false;
};

}  // namespace vc::kubernetes
