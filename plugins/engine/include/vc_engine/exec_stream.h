// exec_stream.h — a hijacked exec connection: stdin in, demultiplexed stdout/stderr out.
//
// EngineClient::start_exec() sends POST /exec/{id}/start with Connection: Upgrade and
// Upgrade: tcp. When the engine answers 101 (or 200 with a raw stream, as engines do without
// the upgrade headers) the connection becomes a raw byte pipe in both directions:
//  - client -> engine: stdin bytes, unframed; close_stdin() half-closes the socket
//    (shutdown(SHUT_WR)), which the process in the container reads as EOF on stdin;
//  - engine -> client: output frames (see stream_demuxer.h), delivered through on_output;
//  - the engine closes the connection when the process's output ends, and on_end(ok) runs.
// The exit code is NOT part of the stream: ask GET /exec/{id}/json after on_end (check
// "Running" is false before reading "ExitCode"; Podman reports 0 while running).
//
// Closing the connection does not stop the process in the container (there is no exec kill
// endpoint); abort() only stops listening. Killing is the plugin's job.
//
// Threading: write_stdin(), close_stdin(), abort() and the const accessors may be called from
// any thread; they take effect on the loop thread in call order. Every callback runs on the
// EngineLoop's thread. The ExecStream object may be dropped at any time; the connection lives
// until the stream ends or is aborted (drop it without abort() and it runs to EOF unobserved).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "vc_engine/engine_error.h"
#include "vc_engine/http_types.h"
#include "vc_engine/stream_demuxer.h"

namespace vc::engine {

struct ExecStartOptions {
  // Must equal the Tty of the exec create request: it decides whether the output is framed.
  bool tty = false;
  // The connect timeout applies; `timeout`, when non-zero, bounds the whole stream (on expiry
  // on_end gets kTimeout and the connection is closed). Default: connect 10 s, no deadline.
  RequestOptions deadlines = RequestOptions::unbounded();
};

struct ExecStreamCallbacks {
  // The engine accepted the start (status 101 or 200); stdin now flows. Optional. The status
  // is passed for logs.
  std::function<void(int http_status)> on_started;
  // Output bytes, in order, as they arrive (a frame may come in several pieces). With tty=true
  // everything arrives as StreamKind::kStdout. Optional (output is discarded without it).
  std::function<void(StreamKind stream, std::string_view bytes)> on_output;
  // Runs exactly once, last: ok at a clean EOF; otherwise the error (kHttpStatus when the
  // engine refused the start, e.g. 404 no such exec or 409 already running; kTransport when
  // the connection broke; kProtocol for a broken frame stream or EOF inside a frame;
  // kTimeout; kCancelled after abort() or when the EngineLoop stops). Required.
  std::function<void(Result<void> end)> on_end;
};

namespace detail {
class ExecConnection;
}

class ExecStream {
 public:
  explicit ExecStream(std::shared_ptr<detail::ExecConnection> connection);
  ~ExecStream();

  ExecStream(const ExecStream&) = delete;
  ExecStream& operator=(const ExecStream&) = delete;

  // Queues stdin bytes. Bytes written before on_started are sent once the stream is up. After
  // close_stdin(), abort() or the end they are dropped. Any thread.
  void write_stdin(std::string bytes);

  // Half-closes after every queued stdin byte is written (uv_shutdown): the process sees EOF
  // on stdin, output keeps flowing. Idempotent. Any thread.
  void close_stdin();

  // Closes the connection now. on_end runs with kCancelled unless the stream had already ended.
  // Idempotent. Any thread.
  void abort();

  // Output payload bytes received so far (all streams). Any thread.
  std::uint64_t output_bytes() const;

 private:
  std::shared_ptr<detail::ExecConnection> connection_;
};

}  // namespace vc::engine
