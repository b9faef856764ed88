// port_forward_stream.h — one TCP connection to a port of a pod, through the API server's
// pods/portforward over a WebSocket (api_websocket.h) speaking v4.channel.k8s.io
// (channel_protocol.h): a byte stream to write to and read from. This is how the host reaches a
// port inside a pod, e.g. the desktop's noVNC/VNC WebSocket on 6080: one stream per connection.
//
// On the wire: channel 0 carries the data both ways and channel 1 the server's error text; the
// server's first message on each starts with the port number (2 bytes, little-endian), which
// this stream checks and takes off. The node opens the TCP connection in the pod once the
// upgrade is done, so a port where nothing listens is not an upgrade refusal: the server sends
// its error text ("... connect: connection refused") and closes, and on_close reports it.
//
// Why only v4.channel.k8s.io: "portforward.k8s.io" is the name of the SPDY protocol, and newer
// servers' WebSocket port-forward tunnels SPDY ("SPDY/3.1+portforward.k8s.io"); all of them
// still serve v4.channel.k8s.io.
//
// Ending: the pod's side closing the connection ends the stream (on_close with success); there
// is no half-close in either direction. close() sends what is queued, then ends the stream
// (the pod's side sees its connection end); cancel() ends it at once.
//
// Backpressure as in exec_stream.h: write() is refused whole (`full`) beyond max_queued_bytes,
// on_drained says when to try again; pause_receiving() stops reading.
//
// Thread rule: start(), write(), close(), cancel() and pause/resume_receiving() from any thread.
// Every callback runs on the ApiLoop's thread, none after on_close, and on_close exactly once
// (unless the loop is stopped first). Dropping the returned pointer does not end the stream.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "api_endpoint.h"
#include "api_error.h"
#include "api_loop.h"
#include "api_websocket.h"
#include "channel_protocol.h"

namespace vc::kubernetes {

struct PortForwardRequest {
  std::string namespace_name;
  std::string pod;
  std::uint16_t port = 0;
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds idle_timeout{0};  // 0: none; see ApiWebSocketRequest
  std::size_t max_queued_bytes = 4 * 1024 * 1024;
};

struct PortForwardCallbacks {
  // Optional: the server accepted the stream (the pod's port may still refuse; see above).
  std::function<void()> on_open;
  // Bytes from the pod's port, in order; the view is valid during the call.
  std::function<void(std::string_view bytes)> on_data;
  // Optional: after write() returned `full`, the queue has been written out.
  std::function<void()> on_drained;
  // The stream ended: success when the pod's side or close() ended it; otherwise why (the
  // server's error text, kind `server`; a refused upgrade; `cancelled`). Exactly once, last.
  std::function<void(ApiExpected<void> result)> on_close;
};

// /api/v1/namespaces/<ns>/pods/<pod>/portforward?ports=<port>, every part escaped.
std::string port_forward_target(const PortForwardRequest& request);

// "Cannot forward port 6080 of pod x in namespace y", the start of every failure.
std::string port_forward_subject(const PortForwardRequest& request);

class PortForwardStream : public std::enable_shared_from_this<PortForwardStream> {
 public:
  // [any-thread] Starts the stream. Credentials are asked for on the calling thread (see
  // ApiWebSocket::connect). A request without namespace, pod or port fails through on_close.
  static std::shared_ptr<PortForwardStream> start(ApiLoop& loop, const ApiEndpoint& endpoint,
                                                  PortForwardRequest request,
                                                  PortForwardCallbacks callbacks);

  // [any-thread] Queues `bytes` for the pod's port (sent once the stream is open).
  WriteAdmission write(std::string bytes);

  // [any-thread] Sends what is queued, then ends the stream; on_close follows.
  void close();

  // [any-thread] Ends the stream now; on_close reports kind `cancelled`.
  void cancel();

  // [any-thread] Stops and restarts reading from the pod's port.
  void pause_receiving();
  void resume_receiving();

  // Use start().
  explicit PortForwardStream(PortForwardRequest request, PortForwardCallbacks callbacks);

 private:
  void on_message(std::string_view message);  // [loop]
  void on_end(ApiExpected<void> end);          // [loop]

  PortForwardRequest request_;
  PortForwardCallbacks callbacks_;
  std::shared_ptr<ApiWebSocket> socket_;

  // Loop-thread only.
  PortPrefixReader data_prefix_;
  PortPrefixReader error_prefix_;
  std::string error_text_;  // the server's error text so far, bounded
};

}  // namespace vc::kubernetes
