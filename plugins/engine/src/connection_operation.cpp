// connection_operation.cpp — connection lifetime, deadlines and the single completion.
#include "connection_operation.h"

#include <string>

namespace vc::engine::detail {

std::string timeout_text(std::chrono::milliseconds duration) {
  const auto millis = duration.count();
  if (millis % 1000 == 0) return "timed out after " + std::to_string(millis / 1000) + " s";
  return "timed out after " + std::to_string(millis) + " ms";
}

ConnectionOperation::ConnectionOperation(EngineLoop& loop, EngineAddress address,
                                         RequestOptions deadlines)
    : Operation(loop),
      address_(std::move(address)),
      deadlines_(deadlines),
      // uv_loop() is only read here, not used: the socket touches it from connect() on.
      socket_(loop.uv_loop(), *this) {}

// By the time the last reference goes, finish() released the timers on the loop thread and the
// socket reported itself closed, so nothing here touches libuv (this may run on another thread).
ConnectionOperation::~ConnectionOperation() = default;

void ConnectionOperation::begin() {
  if (finished_) return;  // cancelled before it started
  began_ = true;
  self_ = shared_from_this();
  loop().register_resource(this);
  if (deadlines_.connect_timeout.count() > 0) {
    connect_timer_ = std::make_unique<LoopTimer>(loop());
    connect_timer_->start(deadlines_.connect_timeout, [this] {
      fail(make_error(EngineErrorKind::kTimeout,
                      timeout_text(deadlines_.connect_timeout) + " while connecting"));
    });
  }
  if (deadlines_.timeout.count() > 0) {
    deadline_timer_ = std::make_unique<LoopTimer>(loop());
    deadline_timer_->start(deadlines_.timeout, [this] {
      fail(make_error(EngineErrorKind::kTimeout, timeout_text(deadlines_.timeout)));
    });
  }
  socket_.connect(address_);
}

void ConnectionOperation::cancel() {
  auto guard = shared_from_this();
  if (!began_) {
    // Cancelled before begin() ran (both were posted; cancel won the race only if begin() was
    // refused). Complete now; begin() will then do nothing.
    if (finished_) return;
    finished_ = true;
    deliver_failure(cancelled_error());
    return;
  }
  fail(cancelled_error());
}

void ConnectionOperation::complete_unstarted(EngineError error) {
  if (finished_) return;
  finished_ = true;
  deliver_failure(std::move(error));
}

bool ConnectionOperation::finish() {
  if (finished_) return false;
  finished_ = true;
  connect_timer_.reset();
  deadline_timer_.reset();
  socket_.close();
  return true;
}

void ConnectionOperation::fail(EngineError error) {
  auto guard = shared_from_this();  // the close may release self_ synchronously
  if (!finish()) return;
  deliver_failure(std::move(error));
}

void ConnectionOperation::on_write_failed(int uv_status) {
  fail(error_from_uv(EngineErrorKind::kTransport, uv_status));
}

void ConnectionOperation::on_socket_connected(int status) {
  auto guard = shared_from_this();
  if (finished_) return;
  if (status != 0) {
    fail(error_from_uv(EngineErrorKind::kConnect, status));
    return;
  }
  connect_timer_.reset();
  on_connected();
}

void ConnectionOperation::on_socket_data(std::string_view bytes) {
  auto guard = shared_from_this();
  if (finished_) return;
  on_bytes(bytes);
}

void ConnectionOperation::on_socket_read_end(int status) {
  auto guard = shared_from_this();
  if (finished_) return;
  if (status == UV_EOF) {
    on_end_of_stream();
    return;
  }
  fail(error_from_uv(EngineErrorKind::kTransport, status));
}

void ConnectionOperation::on_socket_write_failed(int status) {
  auto guard = shared_from_this();
  if (finished_) return;
  on_write_failed(status);
}

void ConnectionOperation::on_socket_closed() {
  loop().unregister_resource(this);
  // Callers of close() hold a guard, so this is never the last reference mid-call.
  self_.reset();
}

}  // namespace vc::engine::detail
