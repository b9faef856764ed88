// template_backend.h — one instance of the template backend: the vc_backend handed to the host
// and the implementation of each operation.
//
// Every operation function below is called by the host on its event-loop thread and must not
// block. Each one validates the request synchronously (a malformed request is rejected with
// VC_E_INVALID_ARGUMENT, and then complete() is never called), then either completes at once
// (no I/O needed) or hands the work to a plugin thread that completes the op later:
//   file-system work          -> tasks_  (one worker thread, call order)
//   exec                      -> lanes_  (one thread per busy computer, call order per computer)
//   wait_for_death            -> deaths_ (no thread; pending until cancelled or removed)
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <vc-backend-1/vc_sdk.h>

#include "computer_store.h"
#include "death_watch.h"
#include "exec_lanes.h"
#include "host_log.h"
#include "op_registry.h"
#include "task_queue.h"

namespace vc_template {

class TemplateBackend {
 public:
  // [loop-thread] The descriptor's create_backend(): reads {"options":{"scratch-root":...}}.
  // On failure returns an error status and sets `error`; no thread was started then.
  static vc_status create(const vc_host_services* host, std::string_view config_json,
                          vc_backend** out_backend, std::string& error);

  // The operations, one per slot of vc_backend_ops. [loop-thread], never block.
  vc_status validate(const nlohmann::json& request, const vc_op* op);
  vc_status ensure_image(const nlohmann::json& request, const vc_op* op);
  vc_status create_computer(const nlohmann::json& request, const vc_op* op);
  vc_status attach(const nlohmann::json& request, const vc_op* op);
  vc_status list(const nlohmann::json& request, const vc_op* op);
  vc_status restart(const nlohmann::json& request, const vc_op* op);
  vc_status remove(const nlohmann::json& request, const vc_op* op);
  vc_status factory_reset(const nlohmann::json& request, const vc_op* op);
  vc_status exec(const nlohmann::json& request, std::string_view stdin_bytes, const vc_op* op);
  vc_status wait_for_death(const nlohmann::json& request, const vc_op* op);
  vc_status tool_instructions(const nlohmann::json& request, const vc_op* op);

  // [loop-thread] ops->cancel().
  void cancel(const vc_op* op);
  // [loop-thread] ops->destroy(): stops every plugin thread, then deletes the instance.
  void destroy();

  // [host loop] What an op function's status becomes for the host. A rejected op has no
  // message in ABI 1, so a rejection whose reason reject() recorded becomes an accepted op
  // completed at once with VC_E_INVALID_ARGUMENT and that reason; other statuses pass through.
  vc_status settle_rejection(const vc_op* op, vc_status status);

  const HostLog& log() const { return log_; }

 private:
  class ExecJob;

  TemplateBackend(const vc_host_services* host, std::filesystem::path scratch_root);
  ~TemplateBackend() = default;

  // Accepts the op and runs `work` on the task worker; the op completes with its result
  // (or VC_E_CANCELLED when cancelled before it started).
  vc_status run_on_worker(const vc_op* op, std::function<OpResult()> work);
  // Accepts the op and completes it before returning (for work that needs no I/O).
  vc_status complete_now(const vc_op* op, const OpResult& result);
  // Returns the valid computer_id of `request`, or an empty string (and logs why).
  std::string computer_id_of(const nlohmann::json& request, const char* operation) const;
  // Records why `operation`'s request is invalid (see settle_rejection) and logs it.
  vc_status reject(const char* operation, std::string_view why) const;
  // Ends every wait_for_death of a computer whose directory this backend removed.
  void end_death_watches(const std::string& computer_id, std::string_view reason);
  void run_exec(ExecJob& job);

  vc_backend handle_{};
  mutable std::optional<std::string> rejection_;  // set by reject(), taken by settle_rejection()
  HostLog log_;
  ComputerStore store_;
  OpRegistry registry_;
  DeathWatch deaths_;
  ExecLanes lanes_;
  TaskQueue tasks_;  // last: its thread starts once everything it uses exists
};

}  // namespace vc_template
