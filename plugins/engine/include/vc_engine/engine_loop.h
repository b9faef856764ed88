// engine_loop.h — the plugin's private libuv loop, running on a thread of its own.
//
// A plugin must never touch the host's event loop, and a slow engine must never stall the host,
// so every engine connection lives on this loop instead. The plugin creates one EngineLoop at
// load time and destroys it at unload; all EngineClient callbacks run on its thread.
//
// Threading rules, in short:
//  - post(), post_after(), stop(), is_loop_thread() and running() may be called from any thread.
//  - uv_loop() and LoopTimer are for the loop thread only (inside a posted task or a callback).
//  - The destructor must not run on the loop thread (it joins it).
//  - Destroy the EngineLoop BEFORE the objects its callbacks use: stopping it still runs the
//    completions of in-flight calls (with kCancelled) on the loop thread.
#pragma once

#include <uv.h>

#include <chrono>
#include <functional>
#include <memory>

namespace vc::engine {

class LoopResource;

class EngineLoop {
 public:
  // Starts the thread and its loop. Throws std::runtime_error when libuv cannot initialise the
  // loop or the thread cannot start (out of resources). Any thread.
  EngineLoop();
  // stop(), then joins the thread. Must not run on the loop thread. Any other thread.
  ~EngineLoop();

  EngineLoop(const EngineLoop&) = delete;
  EngineLoop& operator=(const EngineLoop&) = delete;

  // Queues `task` to run on the loop thread, in FIFO order with other posted tasks. Any thread,
  // including the loop thread (the task then runs on a later iteration, never inline).
  // Returns false, and drops the task without running it, once stop() has begun.
  bool post(std::function<void()> task);

  // Runs `task` on the loop thread after `delay` (one-shot, not cancellable; use LoopTimer for
  // a timer you can stop). Any thread. False once stop() has begun; a task whose delay has not
  // passed when the loop stops is dropped without running.
  bool post_after(std::chrono::milliseconds delay, std::function<void()> task);

  // Stops the loop: refuses new tasks, runs the tasks already queued, then aborts every
  // in-flight engine operation (each completes with EngineErrorKind::kCancelled, on the loop
  // thread), closes every handle and ends the thread. Idempotent. Any thread; on the loop thread
  // it only requests the stop (the destructor joins later).
  void stop();

  // True when called on the loop thread. Any thread.
  bool is_loop_thread() const;

  // True until stop() begins. Any thread.
  bool running() const;

  // The libuv loop, for handles a plugin wants to run here itself (uv_spawn for a child engine
  // service, for instance). Loop thread only. Handles created on it must be closed before
  // stop() completes: register a LoopResource (below) to be told when that is.
  uv_loop_t* uv_loop();

  // Loop thread only. A registered resource's shutdown() is called once when the loop stops,
  // so it can close its handles (and complete its callbacks with kCancelled). A resource must
  // unregister itself before it is destroyed.
  void register_resource(LoopResource* resource);
  void unregister_resource(LoopResource* resource);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Something that owns libuv handles on an EngineLoop and must close them when the loop stops.
// Loop thread only.
class LoopResource {
 public:
  virtual ~LoopResource() = default;
  // Called once on the loop thread while the loop stops. Must start closing every handle
  // (uv_close) and complete pending callbacks; the loop keeps running until they are closed.
  virtual void shutdown() = 0;
};

// A restartable one-shot timer on an EngineLoop. Loop thread only: construct, start, stop and
// destroy it on the loop thread (inside a posted task or a callback). Destroying it stops it;
// the callback never runs after stop() or destruction. When the EngineLoop stops, the timer
// stops for good (start() does nothing afterwards); the object itself stays valid to destroy.
class LoopTimer {
 public:
  explicit LoopTimer(EngineLoop& loop);
  ~LoopTimer();

  LoopTimer(const LoopTimer&) = delete;
  LoopTimer& operator=(const LoopTimer&) = delete;

  // (Re)starts the timer: `on_fire` runs once on the loop thread after `delay`. A running timer
  // is restarted with the new delay and callback.
  void start(std::chrono::milliseconds delay, std::function<void()> on_fire);
  // Stops the timer if it runs. Idempotent.
  void stop();
  bool active() const;

 private:
  struct Handle;
  Handle* handle_;  // closed asynchronously, so it outlives this object briefly
};

}  // namespace vc::engine
