// uv_handles.h — closing heap-allocated libuv handles, and running a function on a later turn.
#pragma once

#include <functional>

#include <uv.h>

namespace vc {

// [loop-thread] Closes `handle` (allocated with `new T` and initialised) and deletes it once
// libuv has released it; then runs `closed`, if given. Uses handle->data.
template <class T>
void close_and_delete(T* handle, std::function<void()> closed = {}) {
  auto* base = reinterpret_cast<uv_handle_t*>(handle);
  base->data = closed ? new std::function<void()>(std::move(closed)) : nullptr;
  uv_close(base, [](uv_handle_t* released) {
    auto* then = static_cast<std::function<void()>*>(released->data);
    delete reinterpret_cast<T*>(released);
    if (then != nullptr) {
      (*then)();
      delete then;
    }
  });
}

// [loop-thread] Runs `fn` on the loop thread on a later loop turn (a zero-timeout uv_timer), so
// a caller's callback is never invoked from inside the call that scheduled it.
void run_on_later_turn(uv_loop_t* loop, std::function<void()> fn);

}  // namespace vc
