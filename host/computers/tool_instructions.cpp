// tool_instructions.cpp — see tool_instructions.h.
#include "computers/tool_instructions.h"

#include <memory>

#include "backend_proxy/backend.h"

namespace vc::computers {
namespace {

std::optional<std::string> instructions_text(const Json& result) {
  const auto text = result.find("instructions");
  if (text == result.end() || !text->is_string() || text->get<std::string>().empty()) {
    return std::nullopt;
  }
  return text->get<std::string>();
}

}  // namespace

Expected<std::optional<std::string>> fetch_tool_instructions(uv_loop_t* loop,
                                                             const ComputerRegistry& registry,
                                                             uint64_t limit_ms) {
  backend_proxy::Backend& backend = *registry.backend();
  const ComputerSettings& settings = registry.settings();
  struct Wait {
    std::optional<Expected<Json>> result;
    bool timed_out = false;
    CancelHandle operation;
  };
  auto wait = std::make_shared<Wait>();

  backend_proxy::OpCallbacks callbacks;
  callbacks.on_complete = [wait](Expected<Json> result) { wait->result = std::move(result); };
  wait->operation = backend.start(backend_proxy::Operation::tool_instructions,
                                  Json{{"shell", settings.shell}, {"default_timeout_s", settings.default_timeout_s}},
                                  std::move(callbacks));

  auto* timer = new uv_timer_t;
  uv_timer_init(loop, timer);
  timer->data = wait.get();
  uv_timer_start(
      timer,
      [](uv_timer_t* handle) {
        auto* waiting = static_cast<Wait*>(handle->data);
        waiting->timed_out = true;
        if (waiting->operation) waiting->operation->cancel();  // completes as cancelled
      },
      limit_ms, 0);

  while (!wait->result) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(timer),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });

  if (wait->timed_out && !wait->result->ok()) {
    return Failure{VC_E_TIMEOUT, "The " + backend.info().name +
                                     " backend did not answer tool_instructions within " +
                                     std::to_string(limit_ms / 1000) + " seconds."};
  }
  if (!wait->result->ok()) return wait->result->error();
  return instructions_text(wait->result->value());
}

}  // namespace vc::computers
