#include "common/uv_handles.h"

#include <spdlog/spdlog.h>

namespace vc {

void run_on_later_turn(uv_loop_t* loop, std::function<void()> fn) {
  auto* timer = new uv_timer_t;
  if (const int error = uv_timer_init(loop, timer); error != 0) {
    delete timer;
    spdlog::error("cannot schedule a deferred call: uv_timer_init failed: {}", uv_strerror(error));
    return;
  }
  timer->data = new std::function<void()>(std::move(fn));
  uv_timer_start(
      timer,
      [](uv_timer_t* fired) {
        auto* call = static_cast<std::function<void()>*>(fired->data);
        fired->data = nullptr;
        close_and_delete(fired);
        try {
          (*call)();
        } catch (const std::exception& error) {
          spdlog::error("a deferred call threw: {}", error.what());
        } catch (...) {
          spdlog::error("a deferred call threw a non-standard exception");
        }
        delete call;
      },
      0, 0);
}

}  // namespace vc
