// api_loop.cpp — the API thread: an io_context kept running by a work guard until stopped.
// Thread rule: see api_loop.h.
#include "api_loop.h"

#include <boost/asio/post.hpp>

namespace vc::kubernetes {

ApiLoop::ApiLoop()
    : work_(boost::asio::make_work_guard(context_)), thread_([this] { context_.run(); }) {}

ApiLoop::~ApiLoop() { stop_and_join(); }

void ApiLoop::post(std::function<void()> task) { boost::asio::post(context_, std::move(task)); }

bool ApiLoop::on_loop_thread() const { return thread_.get_id() == std::this_thread::get_id(); }

void ApiLoop::stop_and_join() {
  if (!thread_.joinable()) return;
  work_.reset();
  context_.stop();
  thread_.join();
}

}  // namespace vc::kubernetes
