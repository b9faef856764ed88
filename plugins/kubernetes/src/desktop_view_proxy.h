// desktop_view_proxy.h — a listener on 127.0.0.1 that makes one port of a pod reachable from a
// browser on this machine: each TCP connection accepted is relayed over a stream of its own to
// the pod's port (port_forward_stream.h). This is how a person sees a desktop computer: its pod
// runs a noVNC/websockify bridge on port 6080, and the browser opens
// http://127.0.0.1:<port>/vnc.html#...&path=websockify%3Ftoken%3D<secret>.
//
// The listener checks nothing: any program of this machine may connect to it. What guards the
// desktop is the bridge in the pod, which accepts only WebSockets whose URL carries the secret.
//
// Relaying: bytes go both ways as they come, with backpressure both ways. What the browser sends
// is read at most read_chunk_bytes at a time; a stream that refuses it (`full`) stops the reading
// until its on_drained. What the pod sends waits until the browser's socket takes it; beyond
// pause_bytes the stream is paused (pause_receiving()) until the socket has taken it. Every
// buffer is bounded: a stream that keeps sending after being paused, beyond max_buffered_bytes,
// ends its connection.
//
// Ending: either side ending ends both. The browser closing its connection closes the stream
// (what it sent before goes out first); the pod's side closing, or the stream failing, closes the
// browser's connection once what the pod sent has been written to it. A failure (the pod's port
// refusing, the pod missing) is logged with the stream's sentence; the browser sees its
// connection close. At most max_connections are relayed at once: one more is closed at once, with
// a log line.
//
// Where streams come from: a PodPortOpener, called on the loop thread for each connection with
// the current pod. port_forward_opener() opens PortForwardStreams; tests give fakes.
// PortForwardStream::start asks the endpoint's credential source on the calling thread, so with
// it the loop waits while stale credentials of an exec credential plugin are refreshed.
//
// Thread rule: start(), port(), open_connections(), retarget(), stop() and destruction on any
// thread. Everything else (accepting, relaying, the opener, the streams' callbacks) happens on
// the ApiLoop's thread. stop() off the loop thread returns once every relayed stream has
// reported its end; on the loop thread it cannot wait, and the loop must keep running until the
// streams have ended (api_websocket.h). Destroy the proxy before its ApiLoop is stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <vc-backend-1/cpp/expected.h>
#include <vc-backend-1/cpp/host_log.h>

#include "api_endpoint.h"
#include "api_loop.h"
#include "api_websocket.h"
#include "port_forward_stream.h"

namespace vc::kubernetes {

// The pod's end of one relayed connection: the calls of PortForwardStream the proxy makes,
// behind an interface so that relaying can be tested without a cluster. The contract is
// PortForwardStream's: write() refuses whole, on_drained follows a `full`, every callback on the
// loop thread, on_close exactly once and last.
class PodPortStream {
 public:
  virtual ~PodPortStream() = default;
  virtual WriteAdmission write(std::string bytes) = 0;
  virtual void close() = 0;
  virtual void cancel() = 0;
  virtual void pause_receiving() = 0;
  virtual void resume_receiving() = 0;
};

// Opens a stream to the port of `pod` that reports to `callbacks`. Called on the loop thread.
using PodPortOpener =
    std::function<std::shared_ptr<PodPortStream>(const std::string& pod, PortForwardCallbacks)>;

// PortForwardStreams on `loop` to `endpoint`: `request` (namespace, port, timeouts, queue bound)
// with its pod set to the one asked for.
PodPortOpener port_forward_opener(ApiLoop& loop, ApiEndpoint endpoint, PortForwardRequest request);

struct DesktopViewProxyOptions {
  // The port to listen on; 0 lets the system pick a free one (port() says which).
  std::uint16_t port = 0;
  // For messages: what the listener shows ("the desktop of computer c1").
  std::string subject = "the desktop view";
  // Connections relayed at once; one more is closed at once.
  std::size_t max_connections = 32;
  // Browser to pod: the most read from the browser's socket at a time. At most the streams'
  // queue bound (PortForwardRequest::max_queued_bytes), which refuses larger writes.
  std::size_t read_chunk_bytes = 64 * 1024;
  // Pod to browser: the stream is paused while more than this waits for the browser's socket.
  std::size_t pause_bytes = 256 * 1024;
  // Pod to browser: the bound of what waits for the browser's socket; a stream that goes beyond
  // it (it kept sending after being paused) ends its connection.
  std::size_t max_buffered_bytes = 8 * 1024 * 1024;
};

// Why the listener could not start: a sentence ("Cannot listen on 127.0.0.1:6080 for the desktop
// of computer c1: the port is already in use. ...").
struct DesktopViewProxyError {
  std::string message;
};

class DesktopViewProxy {
 public:
  // [any-thread] Listens on 127.0.0.1 (options.port) and relays every connection
  // to a stream `opener` opens to `pod`. Log lines go to `log`.
  static sdk::Expected<std::unique_ptr<DesktopViewProxy>, DesktopViewProxyError> start(
      ApiLoop& loop, std::string pod, PodPortOpener opener, DesktopViewProxyOptions options,
      sdk::HostLog log);

  // [any-thread] stop().
  ~DesktopViewProxy();
  DesktopViewProxy(const DesktopViewProxy&) = delete;
  DesktopViewProxy& operator=(const DesktopViewProxy&) = delete;

  // [any-thread] The port listened on (still known after stop()).
  std::uint16_t port() const { return port_; }

  // [any-thread] Connections accepted from now on go to `pod`; those open stay where they are.
  void retarget(std::string pod);

  // [any-thread] Connections relayed now, including those whose stream is still ending.
  std::size_t open_connections() const;

  // [any-thread] Closes the listener and every relayed connection (their streams are
  // cancelled). Off the loop thread it returns once every stream has reported its end (see the
  // thread rule). Idempotent.
  void stop();

  // Use start().
  class Listener;  // the loop's side, in the .cpp
  DesktopViewProxy(ApiLoop& loop, std::shared_ptr<Listener> listener, std::uint16_t port);

 private:
  ApiLoop& loop_;
  std::shared_ptr<Listener> listener_;
  std::uint16_t port_;
};

}  // namespace vc::kubernetes
