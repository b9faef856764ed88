// operation.h — the base of every asynchronous engine call, and how calls are launched.
//
// An Operation is created on the caller's thread (its constructor touches no libuv state),
// started on the loop thread by launch(), and cancellable through a RequestHandle. It keeps
// itself alive while it runs, so the caller may drop every reference.
#pragma once

#include <memory>

#include "vc_engine/engine_error.h"
#include "vc_engine/engine_loop.h"
#include "vc_engine/request_handle.h"

namespace vc::engine::detail {

class Operation : public LoopResource, public std::enable_shared_from_this<Operation> {
 public:
  explicit Operation(EngineLoop& loop) : loop_(loop) {}
  ~Operation() override = default;

  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  EngineLoop& loop() const { return loop_; }

  // Starts the work. Loop thread.
  virtual void begin() = 0;
  // Stops the work; the completion runs with kCancelled unless it already ran. Idempotent.
  // Loop thread.
  virtual void cancel() = 0;
  // The loop refused to start the operation (it is stopping): complete with `error` on the
  // calling thread, without touching libuv. Called at most once, instead of begin().
  virtual void complete_unstarted(EngineError error) = 0;

  // LoopResource: the loop is stopping.
  void shutdown() override { cancel(); }

 private:
  EngineLoop& loop_;
};

// Posts operation->begin() to its loop. When the loop is stopping, completes the operation at
// once on this thread with kCancelled. Returns the handle that cancels it. Any thread.
RequestHandle launch(const std::shared_ptr<Operation>& operation);

// The kCancelled error: "cancelled".
EngineError cancelled_error();

}  // namespace vc::engine::detail
