// api_loop.cpp — the API thread: an io_context kept running by a work guard until stopped.
// Thread rule: see api_loop.h.
#include "api_loop.h"

#include <boost/asio/post.hpp>

#include <chrono>

namespace vc::kubernetes {
namespace {

// How long stop_and_join() lets handlers already due (cancelled streams ending) run.
constexpr std::chrono::milliseconds kDrainTime{2000};

}  // namespace

ApiLoop::ApiLoop()
    : work_(boost::asio::make_work_guard(context_)),
      thread_([this] {
        context_.run();
        ran_out_.set_value();
      }) {}

ApiLoop::~ApiLoop() { stop_and_join(); }

void ApiLoop::post(std::function<void()> task) { boost::asio::post(context_, std::move(task)); }

bool ApiLoop::on_loop_thread() const { return thread_.get_id() == std::this_thread::get_id(); }

void ApiLoop::stop_and_join() {
  if (!thread_.joinable()) return;
  // What was cancelled just before (a stream's close) still has handlers to run: they report
  // its end and drop what its handlers own. Let the loop run out of work for a moment; then
  // drop whatever is still pending.
  work_.reset();
  if (ran_out_.get_future().wait_for(kDrainTime) != std::future_status::ready) context_.stop();
  thread_.join();
}

}  // namespace vc::kubernetes
