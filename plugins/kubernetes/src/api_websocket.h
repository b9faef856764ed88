// api_websocket.h — one WebSocket to the Kubernetes API server carrying binary messages: what
// the exec and port-forward streams (exec_stream.h, port_forward_stream.h) run on.
//
// connect() connects (api_connection.h: TLS with the endpoint's trust and client certificate),
// sends the upgrade request for a target such as /api/v1/namespaces/n/pods/p/exec?... with the
// bearer token and the subprotocols offered, then reads messages until the connection ends.
// Beast does the WebSocket framing; messages go out whole, never fragmented, because the
// kubelet's WebSocket server (golang.org/x/net/websocket) reads each frame as a message.
//
// Outgoing messages wait in a queue bounded in bytes (including the one being written): send()
// refuses a message that would go beyond max_queued_bytes, and on_drained tells a writer that
// was refused when the queue has been written out. Incoming messages are delivered as they
// come; pause_receiving() stops reading (the server then stops too, once TCP's window is full).
//
// A failure is an ApiError whose message begins with the request's `subject` ("Cannot run a
// command in pod x (container c) of namespace y: ..."). An upgrade the server refuses (HTTP 404,
// 400, ...) becomes the kind of its status with the message of the Status it sent; a 401 also
// invalidates the endpoint's credentials, so the next call refreshes them.
//
// Thread rule: create(), connect(), send(), close(), cancel() and pause/resume_receiving() from
// any thread. Every handler runs on the ApiLoop's thread; on_end runs exactly once, and no
// handler runs after it. end() is for the loop thread (handlers). The handlers are dropped at
// the end; until then they (and what they own) live with the stream, so owners end their
// streams (cancel()) before they stop the ApiLoop, as api_loop.h asks: a stream still running
// then never reports its end, and it and its handlers are not freed.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api_endpoint.h"
#include "api_error.h"
#include "api_loop.h"

namespace vc::kubernetes {

struct ApiWebSocketRequest {
  // The request's path and query, without the server's base path ("/api/v1/...?...").
  std::string target;
  // Offered in this order (the server picks the first it supports).
  std::vector<std::string> subprotocols;
  // The start of every failure's sentence, naming what the stream is for.
  std::string subject;
  // Connect, TLS handshake and upgrade together.
  std::chrono::milliseconds connect_timeout{30000};
  // 0: none. Otherwise a ping goes out after half of it without incoming data, and the stream
  // fails (kind timeout) when nothing, not even the pong, arrives within all of it. The kubelet
  // answers pings only while it reads, which it cannot while the pod's side leaves the bytes
  // already sent unread, nor can a pong arrive while receiving is paused: choose a value beyond
  // such pauses.
  std::chrono::milliseconds idle_timeout{0};
  // The bound of the outgoing queue, in bytes.
  std::size_t max_queued_bytes = 4 * 1024 * 1024;
};

// `text` percent-encoded for a path segment or a query value of a target: every byte but
// RFC 3986's unreserved ones (A-Z a-z 0-9 - . _ ~) becomes %XX.
std::string escape_url_component(std::string_view text);

// What became of bytes given to a stream's write.
enum class WriteAdmission {
  queued,   // they will be sent
  full,     // no room now: the stream's on_drained says when to try again
  too_big,  // more than the queue's bound: never taken; write smaller pieces
  ended,    // the stream is closing or has ended
};

struct ApiWebSocketHandlers {
  // The upgrade succeeded; the subprotocol the server chose ("" when it named none).
  std::function<void(const std::string& subprotocol)> on_open;
  // One whole message; the view is valid during the call.
  std::function<void(std::string_view message)> on_message;
  // After send() refused a message for lack of room, the queue has been written out.
  std::function<void()> on_drained;
  // The stream ended: success when the server closed it (a close frame or the end of the TLS
  // stream) or end() said so; otherwise why not. Exactly once, last.
  std::function<void(ApiExpected<void>)> on_end;
};

class ApiWebSocket : public std::enable_shared_from_this<ApiWebSocket> {
 public:
  // [any-thread] The stream, not connected yet: its owner keeps the pointer before connect()
  // lets any handler run.
  static std::shared_ptr<ApiWebSocket> create(ApiLoop& loop, const ApiEndpoint& endpoint,
                                              ApiWebSocketRequest request,
                                              ApiWebSocketHandlers handlers);

  // [any-thread] Starts connecting; once. Asks the endpoint's CredentialSource for credentials
  // on the calling thread first (it may block while it refreshes them; see api_endpoint.h).
  void connect();

  // [any-thread] Queues binary messages, all or none; they are sent once the upgrade succeeded,
  // in order. `bounded` false lets a small control message (a close signal, a resize) past the
  // bound; it still counts towards it.
  WriteAdmission send(std::vector<std::string> messages, bool bounded = true);
  WriteAdmission send(std::string message, bool bounded = true);

  // [any-thread] Sends what is queued, then the WebSocket close frame; on_end follows with
  // success when the server has answered it. Later send()s are refused.
  void close();

  // [any-thread] Ends the stream now: the connection is closed without waiting, on_end reports
  // kind `cancelled`. Nothing happens after the end.
  void cancel();

  // [any-thread] Stops and restarts reading messages (see the idle_timeout caveat).
  void pause_receiving();
  void resume_receiving();

  // [loop-thread] Ends the stream now with `result` (a handler that has seen all it needs, e.g.
  // exec's status): the connection is closed without waiting, on_end reports `result`.
  void end(ApiExpected<void> result);

  // The failure sentence for this stream: "<subject>: <what>." (what is bounded).
  ApiError failure(ApiErrorKind kind, const std::string& what, int http_status = 0,
                   std::string reason = "") const;

  ~ApiWebSocket();
  ApiWebSocket(const ApiWebSocket&) = delete;
  ApiWebSocket& operator=(const ApiWebSocket&) = delete;

 private:
  struct Connection;  // the Beast stream and the TLS context, loop-thread only
  struct Key {};      // only create() constructs

 public:
  ApiWebSocket(Key, ApiLoop& loop, ApiEndpoint endpoint, ApiWebSocketRequest request,
               ApiWebSocketHandlers handlers);

 private:
  void start(Credentials credentials);               // [loop]
  void upgrade();                                    // [loop]
  void on_upgraded(const std::string& subprotocol);  // [loop]
  void read_next();                                  // [loop]
  void write_next();                                 // [loop]
  void close_when_written();                         // [loop]
  void finish(ApiExpected<void> result);             // [loop]
  template <class Call>
  void call_handler(Call call);                      // [loop] one of handlers_, not on_end
  bool connection_finished() const;

  ApiLoop& loop_;
  ApiEndpoint endpoint_;
  ApiWebSocketRequest request_;
  ApiWebSocketHandlers handlers_;
  std::unique_ptr<Connection> connection_;

  // Shared with other threads: the outgoing queue and the states send() needs.
  mutable std::mutex mutex_;
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;     // queue_ and the message being written
  bool refused_since_drain_ = false;
  bool closing_ = false;             // close() or the end: no more send()
  bool ended_ = false;

  // Loop-thread only.
  bool open_ = false;         // upgraded, not ended
  bool writing_ = false;
  bool reading_ = false;
  bool paused_ = false;
  bool close_sent_ = false;
  bool cancelled_ = false;
  int handler_depth_ = 0;     // handlers running now (on_open, on_message, on_drained)
  std::string writing_message_;
};

}  // namespace vc::kubernetes
