// api_loop.h — the thread the plugin talks to the Kubernetes API on.
//
// One Asio io_context and the one thread that runs it, for every connection of one backend:
// REST calls, watches, exec and port-forward streams. Their completion callbacks run on this
// thread; the SDK lets an op complete from any thread, so they complete ops directly. Nothing
// that blocks runs here: an exec credential plugin is run by its CredentialSource, and the
// transport asks for credentials before it posts work here only when they are stale.
//
// Thread rule: construct and destroy on one thread (not this loop's own); post() and
// on_loop_thread() from any thread; context() is for objects that live on the loop.
#pragma once

#include <functional>
#include <future>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

namespace vc::kubernetes {

class ApiLoop {
 public:
  // Starts the thread.
  ApiLoop();
  // stop_and_join().
  ~ApiLoop();
  ApiLoop(const ApiLoop&) = delete;
  ApiLoop& operator=(const ApiLoop&) = delete;

  // [any-thread] Runs `task` on the loop thread, after what was posted before it.
  void post(std::function<void()> task);

  // [any-thread] True on the loop's own thread.
  bool on_loop_thread() const;

  // [loop-thread] For sockets, timers and resolvers that live on this loop.
  boost::asio::io_context& context() { return context_; }

  // [owner-thread] Lets the loop run until it has no work left, at most two seconds (streams
  // cancelled just before report their end and drop their handlers), then stops it (pending
  // handlers are dropped, sockets close as their objects are destroyed) and joins the thread.
  // Idempotent. Owners close their connections first, so that every callback they promised
  // has run.
  void stop_and_join();

 private:
  boost::asio::io_context context_{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::promise<void> ran_out_;  // set when run() returned: no work left, or stopped
  std::thread thread_;
};

}  // namespace vc::kubernetes
