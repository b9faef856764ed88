// exec_stream.h — a command run in a pod's container through the API server's pods/exec, over
// a WebSocket (api_websocket.h) speaking v5.channel.k8s.io or v4.channel.k8s.io
// (channel_protocol.h): its stdout and stderr as they come, stdin written to it, the TTY's size,
// and how it ended.
//
// The protocols: v5 is offered first, then v4, and the server picks: v5 from Kubernetes 1.30
// (1.29 with a feature gate), v4 before (channel_protocol.h). Both carry the same channels and
// exit status; only v5 can end stdin alone (close_stdin()). On v4, close_stdin() only refuses
// later writes: the process does not see the end of its input until the whole stream ends, and
// a client that needs to mark the end of input there must do so in the bytes it sends (e.g. a
// framed protocol, or a wrapper script that stops reading at a marker).
//
// The exit status comes last, after all output: on_exit runs as soon as it is whole, and the
// connection is closed then without waiting for the server to close it.
//
// Ending early: cancel() closes the connection at once and on_exit reports kind `cancelled`.
// The API has no way to kill the process: the server closes the process's stdin (a TTY's too)
// and stops copying its output. A process that does not read its stdin, e.g. `sleep`, keeps
// running in the container until it ends by itself; a caller that needs it gone starts it
// under something that ends it when stdin closes, or kills it with a second exec.
//
// Backpressure: what write_stdin() takes waits in a queue bounded by max_queued_stdin_bytes
// until the connection takes it (the server in turn stops reading while the process leaves its
// stdin unread). A write that does not fit is refused whole (WriteAdmission::full), and
// on_stdin_drained then says when the queue has been written out; one larger than the bound is
// never taken (too_big). Output is delivered as it arrives; pause_output() stops reading it.
//
// Failures name the pod and container: "Cannot run a command in pod x (container computer) of
// namespace y: pods \"x\" not found." An upgrade the server refuses has the kind of its HTTP
// status and the message of its Status (pod not found, container not valid or not running).
//
// Thread rule: start(), write_stdin(), close_stdin(), resize(), cancel() and
// pause/resume_output() from any thread. Every callback runs on the ApiLoop's thread, none after
// on_exit, and on_exit exactly once (unless the loop is stopped first). The callbacks stay
// referenced until on_exit; dropping the returned pointer does not end the command.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api_endpoint.h"
#include "api_error.h"
#include "api_loop.h"
#include "api_websocket.h"
#include "channel_protocol.h"

namespace vc::kubernetes {

struct ExecRequest {
  std::string namespace_name;
  std::string pod;
  std::string container;              // empty: the pod's only container
  std::vector<std::string> command;   // argv, run as is (no shell unless argv names one)
  bool with_stdin = false;
  bool with_stdout = true;
  bool with_stderr = true;
  bool tty = false;                   // with a TTY the server sends stderr on stdout
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds idle_timeout{0};  // 0: none; see ApiWebSocketRequest
  std::size_t max_queued_stdin_bytes = 4 * 1024 * 1024;
};

struct ExecCallbacks {
  // Optional: the server accepted the stream and chose `protocol`.
  std::function<void(ChannelProtocol protocol)> on_open;
  // Bytes of stdout / stderr, in order; the view is valid during the call.
  std::function<void(std::string_view bytes)> on_stdout;
  std::function<void(std::string_view bytes)> on_stderr;
  // Optional: after write_stdin() returned `full`, the queue has been written out.
  std::function<void()> on_stdin_drained;
  // How the command ended (ExecExit: its exit code, or why it could not run), or why the
  // stream failed. Exactly once, last.
  std::function<void(ApiExpected<ExecExit> result)> on_exit;
};

// The request's path and query: /api/v1/namespaces/<ns>/pods/<pod>/exec?command=...&command=...
// &container=...&stdin=...&stdout=...&stderr=...&tty=..., every part escaped.
std::string exec_target(const ExecRequest& request);

// "Cannot run a command in pod x (container c) of namespace y", the start of every failure.
std::string exec_subject(const ExecRequest& request);

class ExecStream : public std::enable_shared_from_this<ExecStream> {
 public:
  // [any-thread] Starts the command. Credentials are asked for on the calling thread (see
  // ApiWebSocket::open). A request without a command, pod or namespace fails through on_exit.
  static std::shared_ptr<ExecStream> start(ApiLoop& loop, const ApiEndpoint& endpoint,
                                           ExecRequest request, ExecCallbacks callbacks);

  // [any-thread] Queues `bytes` for the process's stdin (sent once the stream is open).
  // `ended` when the request has no stdin, after close_stdin(), or once the stream ends.
  WriteAdmission write_stdin(std::string bytes);

  // [any-thread] No more stdin: on v5 the process reads the end of its input after what was
  // queued; on v4 later writes are refused and nothing else happens (see above).
  void close_stdin();

  // [any-thread] The TTY's new size; ignored without a TTY.
  void resize(std::uint16_t columns, std::uint16_t rows);

  // [any-thread] Ends the stream now; on_exit reports kind `cancelled` (see above for the
  // process).
  void cancel();

  // [any-thread] Stops and restarts reading the process's output.
  void pause_output();
  void resume_output();

  // [any-thread] The protocol the server chose, once on_open has run.
  std::optional<ChannelProtocol> protocol() const;

  // Use start().
  ExecStream(ApiLoop& loop, ExecRequest request, ExecCallbacks callbacks);

 private:
  void on_open(const std::string& subprotocol);    // [loop]
  void on_message(std::string_view message);       // [loop]
  void on_end(ApiExpected<void> end);               // [loop]
  void send_close_signal();                         // [loop]

  ApiLoop& loop_;
  ExecRequest request_;
  ExecCallbacks callbacks_;
  std::shared_ptr<ApiWebSocket> socket_;

  std::atomic<bool> stdin_closed_{false};
  std::atomic<int> protocol_{-1};  // -1 until open, else ChannelProtocol

  // Loop-thread only.
  bool open_ = false;
  bool close_signal_pending_ = false;
  std::string status_;                 // the status channel's bytes so far
  std::optional<ExecExit> exit_;
  std::optional<ApiError> status_error_;
};

}  // namespace vc::kubernetes
