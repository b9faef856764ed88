// engine_loop.cpp — the private loop thread, its task queue and its timers.
#include "vc_engine/engine_loop.h"

#include <cstdio>
#include <deque>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>

namespace vc::engine {

struct EngineLoop::State {
  uv_loop_t loop{};
  uv_async_t wake{};
  std::thread thread;
  std::thread::id loop_thread_id;

  // Guarded by `mutex`. uv_async_send is only called with the mutex held and never after
  // stop_requested was set (stop()'s own send excepted), so the loop thread may close `wake` as
  // soon as it sees stop_requested with an empty queue.
  std::mutex mutex;
  std::deque<std::function<void()>> tasks;
  bool stop_requested = false;

  // Loop thread only.
  std::unordered_set<LoopResource*> resources;
  bool shutdown_begun = false;

  void on_wake();
  void begin_shutdown();
  void run_thread(std::promise<void>& started);
};

namespace {

// A post_after() task waiting for its delay. Owned by its timer handle; deleted on close.
struct DelayedTask final : LoopResource {
  uv_timer_t timer{};
  std::function<void()> task;
  EngineLoop* owner = nullptr;

  static void on_closed(uv_handle_t* handle) { delete static_cast<DelayedTask*>(handle->data); }

  static void on_fire(uv_timer_t* timer_handle) {
    auto* self = static_cast<DelayedTask*>(timer_handle->data);
    self->owner->unregister_resource(self);
    std::function<void()> task = std::move(self->task);
    uv_close(reinterpret_cast<uv_handle_t*>(&self->timer), on_closed);
    task();
  }

  void shutdown() override {
    // The loop is stopping: the task is dropped, as documented.
    task = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(&timer), on_closed);
  }
};

}  // namespace

void EngineLoop::State::on_wake() {
  std::deque<std::function<void()>> batch;
  {
    std::lock_guard lock(mutex);
    batch.swap(tasks);
  }
  // One batch per wake-up: a task that posts another task does not starve the loop's I/O.
  for (auto& task : batch) task();

  bool close_now = false;
  {
    std::lock_guard lock(mutex);
    if (!tasks.empty()) {
      uv_async_send(&wake);
    } else if (stop_requested && !shutdown_begun) {
      close_now = true;
    }
  }
  if (close_now) begin_shutdown();
}

void EngineLoop::State::begin_shutdown() {
  shutdown_begun = true;
  // Take the resources one at a time: a resource's shutdown may complete callbacks that destroy
  // (and so unregister) other resources, or register new ones.
  while (!resources.empty()) {
    LoopResource* resource = *resources.begin();
    resources.erase(resources.begin());
    resource->shutdown();
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&wake), nullptr);
}

void EngineLoop::State::run_thread(std::promise<void>& started) {
  loop_thread_id = std::this_thread::get_id();
  started.set_value();
  uv_run(&loop, UV_RUN_DEFAULT);
  // Every handle we know of is closed by now. A handle someone else left open on the loop
  // (a plugin that did not register a LoopResource) would make uv_loop_close fail; close it so
  // the thread can end, then report it: it is a bug in the code that created it.
  if (uv_loop_close(&loop) == UV_EBUSY) {
    std::fprintf(stderr,
                 "vc_engine: handles still open when the engine loop stopped; closing them\n");
    uv_walk(
        &loop,
        [](uv_handle_t* handle, void*) {
          if (!uv_is_closing(handle)) uv_close(handle, nullptr);
        },
        nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
  }
}

EngineLoop::EngineLoop() : state_(std::make_unique<State>()) {
  State& state = *state_;
  if (int rc = uv_loop_init(&state.loop); rc != 0) {
    throw std::runtime_error(std::string("cannot create the engine event loop: ") +
                             uv_strerror(rc));
  }
  state.wake.data = &state;
  if (int rc =
          uv_async_init(&state.loop, &state.wake,
                        [](uv_async_t* handle) { static_cast<State*>(handle->data)->on_wake(); });
      rc != 0) {
    uv_loop_close(&state.loop);
    throw std::runtime_error(std::string("cannot create the engine event loop: ") +
                             uv_strerror(rc));
  }
  std::promise<void> started;
  std::future<void> started_future = started.get_future();
  // std::thread throws std::system_error when no thread can be created; the loop is then
  // closed again by nobody, which only leaks the (tiny) loop on a failing process.
  state.thread = std::thread([&state, &started] { state.run_thread(started); });
  started_future.wait();
}

EngineLoop::~EngineLoop() {
  stop();
  if (!state_->thread.joinable()) return;
  if (is_loop_thread()) {
    // Joining ourselves is impossible. Leave the thread and its state alive rather than free
    // memory the thread still uses; this is a misuse the header forbids.
    std::fprintf(stderr, "vc_engine: EngineLoop destroyed on its own thread; leaking it\n");
    state_->thread.detach();
    (void)state_.release();
    return;
  }
  state_->thread.join();
}

bool EngineLoop::post(std::function<void()> task) {
  std::lock_guard lock(state_->mutex);
  if (state_->stop_requested) return false;
  state_->tasks.push_back(std::move(task));
  uv_async_send(&state_->wake);
  return true;
}

bool EngineLoop::post_after(std::chrono::milliseconds delay, std::function<void()> task) {
  return post([this, delay, task = std::move(task)]() mutable {
    auto* delayed = new DelayedTask;
    delayed->task = std::move(task);
    delayed->owner = this;
    delayed->timer.data = delayed;
    uv_timer_init(&state_->loop, &delayed->timer);
    register_resource(delayed);
    const auto millis = delay.count() > 0 ? static_cast<std::uint64_t>(delay.count()) : 0;
    uv_timer_start(&delayed->timer, DelayedTask::on_fire, millis, 0);
  });
}

void EngineLoop::stop() {
  std::lock_guard lock(state_->mutex);
  if (state_->stop_requested) return;
  state_->stop_requested = true;
  uv_async_send(&state_->wake);
}

bool EngineLoop::is_loop_thread() const {
  return std::this_thread::get_id() == state_->loop_thread_id;
}

bool EngineLoop::running() const {
  std::lock_guard lock(state_->mutex);
  return !state_->stop_requested;
}

uv_loop_t* EngineLoop::uv_loop() {
  return &state_->loop;
}

void EngineLoop::register_resource(LoopResource* resource) {
  if (state_->shutdown_begun && state_->resources.empty()) {
    // Registered after the shutdown sweep finished (from a close callback, say): shut it down
    // at once so it cannot keep the stopping loop alive.
    resource->shutdown();
    return;
  }
  state_->resources.insert(resource);
}

void EngineLoop::unregister_resource(LoopResource* resource) {
  state_->resources.erase(resource);
}

// --- LoopTimer -------------------------------------------------------------------------------

struct LoopTimer::Handle final : LoopResource {
  uv_timer_t timer{};
  EngineLoop* loop = nullptr;
  std::function<void()> on_fire;
  bool close_started = false;
  bool close_done = false;
  bool owner_gone = false;

  void begin_close() {
    if (close_started) return;
    close_started = true;
    on_fire = nullptr;
    loop->unregister_resource(this);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer), [](uv_handle_t* handle) {
      auto* self = static_cast<Handle*>(handle->data);
      self->close_done = true;
      if (self->owner_gone) delete self;
    });
  }

  void shutdown() override { begin_close(); }
};

LoopTimer::LoopTimer(EngineLoop& loop) : handle_(new Handle) {
  handle_->loop = &loop;
  handle_->timer.data = handle_;
  uv_timer_init(loop.uv_loop(), &handle_->timer);
  loop.register_resource(handle_);
}

LoopTimer::~LoopTimer() {
  handle_->owner_gone = true;
  handle_->begin_close();
  if (handle_->close_done) delete handle_;
}

void LoopTimer::start(std::chrono::milliseconds delay, std::function<void()> on_fire) {
  if (handle_->close_started) return;  // the loop is stopping; a timer can no longer fire
  handle_->on_fire = std::move(on_fire);
  const auto millis = delay.count() > 0 ? static_cast<std::uint64_t>(delay.count()) : 0;
  uv_timer_start(
      &handle_->timer,
      [](uv_timer_t* timer) {
        auto* self = static_cast<Handle*>(timer->data);
        // Move the callback out first: it may restart or destroy the timer.
        std::function<void()> fire = std::move(self->on_fire);
        self->on_fire = nullptr;
        if (fire) fire();
      },
      millis, 0);
}

void LoopTimer::stop() {
  if (handle_->close_started) return;
  uv_timer_stop(&handle_->timer);
  handle_->on_fire = nullptr;
}

bool LoopTimer::active() const {
  return !handle_->close_started &&
         uv_is_active(reinterpret_cast<const uv_handle_t*>(&handle_->timer)) != 0;
}

}  // namespace vc::engine
