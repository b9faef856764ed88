// http_connection.h — one accepted HTTP/1.1 connection on the server's libuv loop.
//
// Parses requests with llhttp (chunked bodies decoded, keep-alive), one at a time: while a
// request is being answered, later bytes on the connection are kept and parsed afterwards.
// A request is answered either with one response, or with a stream (Server-Sent Events) of
// chunks that ends when the server ends it or the peer goes away.
//
// Limits are enforced before the request reaches the handler: headers larger than
// max_header_bytes get 431, a body larger than max_body_bytes gets 413 (by Content-Length
// before it is read, or as soon as a chunked body passes the limit), malformed HTTP gets 400;
// each also closes the connection. A client that starts a request but does not finish its
// headers within header_timeout_ms is dropped, as is a keep-alive connection idle for
// idle_timeout_ms.
//
// [loop-thread] for every member. The connection owns its libuv handles; it stays alive while
// its owner holds it or a write or close is in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <llhttp.h>
#include <uv.h>

#include "transport/http_message.h"

namespace vc::transport {

struct ConnectionLimits {
  size_t max_header_bytes = 32 * 1024;
  size_t max_body_bytes = 4 * 1024 * 1024;
  uint64_t header_timeout_ms = 10'000;
  uint64_t idle_timeout_ms = 120'000;
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  using RequestHandler =
      std::function<void(const std::shared_ptr<HttpConnection>& connection, HttpRequest request)>;
  using ClosedHandler = std::function<void(HttpConnection& connection)>;

  // Accepts the pending connection of `server`. `read_buffer` is shared by every connection
  // of one listener (reads are consumed before the callback returns). nullptr on failure.
  static std::shared_ptr<HttpConnection> accept(uv_stream_t* server, const ConnectionLimits& limits,
                                                std::string& read_buffer, RequestHandler on_request,
                                                ClosedHandler on_closed);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Answers the current request. The connection then reads the next one, or closes when the
  // request or `close_after` asked for that.
  void respond(const HttpResponse& response, bool close_after = false);

  // Answers the current request with a stream: status and headers now, then write_stream()
  // chunks, then end_stream(). Content-Type is the caller's (text/event-stream for SSE).
  void begin_stream(int status, const HeaderList& headers);
  void write_stream(std::string_view data);
  void end_stream();
  bool streaming() const { return state_ == State::streaming; }

  // Closes at once; queued writes may be lost. Idempotent.
  void close();
  bool is_open() const { return !closing_; }
  // Called once if the connection closes, whatever the reason (the peer, a limit, close()),
  // before the current response has finished; dropped when it finishes and the connection goes
  // back to reading the next request.
  void on_close(std::function<void()> callback) { close_callbacks_.push_back(std::move(callback)); }

  // The peer's address, for logs: "127.0.0.1:51234".
  const std::string& peer() const { return peer_; }

 private:
  enum class State { reading, responding, streaming };

  HttpConnection(const ConnectionLimits& limits, std::string& read_buffer,
                 RequestHandler on_request, ClosedHandler on_closed);
  bool start(uv_stream_t* server);

  void drain();
  void deliver_request();
  void reject(int status);
  void finish_response(bool close_after);
  void write(std::string data);
  void arm_timer(uint64_t timeout_ms);

  // llhttp callbacks
  static int on_message_begin(llhttp_t* parser);
  static int on_method_complete(llhttp_t* parser);
  static int on_url(llhttp_t* parser, const char* at, size_t length);
  static int on_header_field(llhttp_t* parser, const char* at, size_t length);
  static int on_header_value(llhttp_t* parser, const char* at, size_t length);
  static int on_headers_complete(llhttp_t* parser);
  static int on_body(llhttp_t* parser, const char* at, size_t length);
  static int on_message_complete(llhttp_t* parser);
  bool count_header_bytes(size_t length);

  ConnectionLimits limits_;
  std::string& read_buffer_;
  RequestHandler on_request_;
  ClosedHandler on_closed_;
  std::vector<std::function<void()>> close_callbacks_;

  uv_tcp_t tcp_{};
  uv_timer_t timer_{};
  int handles_open_ = 0;
  std::shared_ptr<HttpConnection> self_while_closing_;
  bool closing_ = false;
  size_t writes_in_flight_ = 0;
  bool close_when_written_ = false;

  llhttp_settings_t settings_{};
  llhttp_t parser_{};
  State state_ = State::reading;
  bool draining_ = false;
  std::string pending_input_;
  HttpRequest request_;
  bool header_value_last_ = false;
  size_t header_bytes_ = 0;
  int reject_status_ = 0;
  bool keep_alive_ = true;
  bool chunked_stream_ = true;
  bool answering_head_ = false;  // the request being answered is a HEAD: headers only
  std::string peer_;
};

}  // namespace vc::transport
