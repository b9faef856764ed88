// backend.h — the host side of the ABI: one backend instance created from a plugins::PluginModule.
//
// Every plugin operation is started here, on the loop thread, and its emits and completion are
// marshalled back onto the loop (a mutex-protected queue drained by one uv_async_t, because
// uv_async_send coalesces wake-ups). Callers never see plugin threads: every callback below
// runs on the loop thread, on a later loop turn than the call that started the op.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include <uv.h>

#include "common/cancellable.h"
#include "common/failure.h"
#include "plugin_loader/plugin_module.h"

namespace vc::backend_proxy {

enum class Operation {
  validate,
  ensure_image,
  create,
  attach,
  list,
  restart,
  remove,
  factory_reset,
  set_network_access,
  get_desktop_environment,
  set_desktop_environment,
  exec,
  wait_for_death,
  tool_instructions,
  desktop_action,  // the desktop-control extension (ext/vc_backend_desktop_control.h)
  // The checkpoints extension (ext/vc_backend_checkpoints.h).
  create_checkpoint,
  list_checkpoints,
  restore_checkpoint,
  fork_checkpoint,
  delete_checkpoint,
  // The processes extension (ext/vc_backend_processes.h).
  start_process,
  read_process,
  write_process,
  kill_process,
  list_processes,
};

// "validate", "ensure_image", ... (the names used in the SDK's schema files).
const char* operation_name(Operation op);

// What a plugin answered when the host asked it for an optional extension's table.
struct ExtensionOffer {
  bool returned = false;      // get_extension gave a table
  uint32_t struct_size = 0;   // that table's struct_size (0 when none was returned)
  bool usable = false;        // large enough for every operation: the host uses it
  std::vector<Operation> null_slots;  // operations of a usable table the plugin left NULL
};

struct OpCallbacks {
  // [loop-thread] One stream chunk (VC_STREAM_STDOUT / STDERR / PROGRESS), in emit order.
  std::function<void(vc_stream stream, std::string_view bytes)> on_emit;
  // [loop-thread] Exactly once. On success the value is the result document.
  std::function<void(Expected<Json> result)> on_complete;
  // Combined stdout+stderr bytes after which emit() answers VC_NOTE_TRUNCATED; 0 = no limit.
  // The first output_limit bytes are delivered to on_emit; bytes beyond them are dropped, and
  // an exec result that still says "exited" is reported as "output_limit_exceeded". This is
  // the one place the limit is enforced: callers keep what on_emit gives them.
  uint64_t output_limit = 0;
};

class Backend {
 public:
  // [loop-thread] Creates the instance: calls the descriptor's create_backend with
  // {"options": options} and a host-services table whose state_dir is
  // `state_dir` (created if missing). Failure carries the plugin's message.
  static Expected<std::shared_ptr<Backend>> create(uv_loop_t* loop,
                                                   std::shared_ptr<plugins::PluginModule> module,
                                                   const Json& options,
                                                   const std::filesystem::path& state_dir);

  virtual ~Backend() = default;

  virtual const plugins::PluginInfo& info() const = 0;

  // [loop-thread] The loop every callback of this backend runs on, for callers that keep timers
  // of their own about its ops (the exec watchdog). nullptr for a backend without one (test
  // doubles): such callers then keep no timer.
  virtual uv_loop_t* loop() const { return nullptr; }

  // [loop-thread] Starts `op`. Always reports through callbacks.on_complete exactly once, also
  // when the plugin rejects the op synchronously or leaves the slot NULL (VC_E_UNSUPPORTED,
  // "The <name> backend does not support <op>."). `stdin_bytes` is only used by exec.
  // The returned handle cancels the op (ops->cancel + is_cancelled).
  virtual CancelHandle start(Operation op, const Json& request, OpCallbacks callbacks,
                             std::string_view stdin_bytes = {}) = 0;

  // [loop-thread] What the plugin offers of the checkpoints extension. A backend without a
  // usable table answers every checkpoint operation VC_E_UNSUPPORTED; upper rooms ask
  // offers_checkpoints() before they offer checkpoints at all.
  virtual ExtensionOffer checkpoints_offer() const { return {}; }
  bool offers_checkpoints() const { return checkpoints_offer().usable; }

  // [loop-thread] What the plugin offers of the processes extension, the same way: upper rooms
  // ask offers_processes() before they offer process tools.
  virtual ExtensionOffer processes_offer() const { return {}; }
  bool offers_processes() const { return processes_offer().usable; }

  // [loop-thread] Number of started ops not yet completed.
  virtual size_t pending_ops() const = 0;

  // [loop-thread] Shutdown: cancels every pending op, waits (running the loop) until all have
  // completed or `deadline_ms` passed, then destroys the instance (skipped, with a log line,
  // if ops are still pending: leaking beats calling into live plugin threads) and closes its
  // uv handles. `done` runs on the loop thread afterwards.
  virtual void shutdown(uint64_t deadline_ms, std::function<void()> done) = 0;
};

}  // namespace vc::backend_proxy
