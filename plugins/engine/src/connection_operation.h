// connection_operation.h — an operation that owns one engine connection and its deadlines.
//
// Connects on begin(), arms the connect timeout and the overall deadline, turns socket events
// into calls of the subclass's hooks, and guarantees one completion: the first of success,
// failure, timeout or cancel wins; the socket is closed and the timers stopped before the
// subclass delivers its result. Loop thread only, except construction and complete_unstarted().
#pragma once

#include <memory>
#include <string_view>

#include "engine_socket.h"
#include "operation.h"
#include "vc_engine/engine_address.h"
#include "vc_engine/http_types.h"

namespace vc::engine::detail {

class ConnectionOperation : public Operation, private SocketListener {
 public:
  ConnectionOperation(EngineLoop& loop, EngineAddress address, RequestOptions deadlines);
  ~ConnectionOperation() override;

  void begin() final;
  void cancel() final;
  void complete_unstarted(EngineError error) final;

 protected:
  // The connection is open; send the request.
  virtual void on_connected() = 0;
  // Bytes from the engine.
  virtual void on_bytes(std::string_view bytes) = 0;
  // The engine closed its side (EOF).
  virtual void on_end_of_stream() = 0;
  // Complete the caller's callback with `error` (called once, after the socket was closed).
  virtual void deliver_failure(EngineError error) = 0;
  // A write failed. By default the whole operation fails with kTransport.
  virtual void on_write_failed(int uv_status);

  // Marks the operation finished, stops the timers and closes the socket. False when it had
  // already finished (the caller must then deliver nothing).
  bool finish();
  // finish(), then deliver_failure(error); nothing when already finished.
  void fail(EngineError error);
  bool finished() const { return finished_; }
  EngineSocket& socket() { return socket_; }

 private:
  void on_socket_connected(int status) override;
  void on_socket_data(std::string_view bytes) override;
  void on_socket_read_end(int status) override;
  void on_socket_write_failed(int status) override;
  void on_socket_closed() override;

  EngineAddress address_;
  RequestOptions deadlines_;
  EngineSocket socket_;
  std::unique_ptr<LoopTimer> connect_timer_;
  std::unique_ptr<LoopTimer> deadline_timer_;
  std::shared_ptr<Operation> self_;  // keeps us alive from begin() until the socket is closed
  bool began_ = false;
  bool finished_ = false;
};

// "timed out after 30 s" / "timed out after 250 ms".
std::string timeout_text(std::chrono::milliseconds duration);

}  // namespace vc::engine::detail
