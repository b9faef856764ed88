// process_backend.h — one instance of the process backend: the vc_backend handed to the host
// and the implementation of each operation.
//
// Every operation function below is called by the host on its event-loop thread and must not
// block. The SDK's op table (vc-backend-1/cpp/backend_ops.h) has already parsed and checked the
// request; each function either completes at once (no I/O needed) or hands the work to a
// plugin thread that completes the op later:
//   file-system work  -> tasks_  (one lane: every computer's lifecycle work in call order)
//   exec              -> execs_  (one lane per computer: call order per computer)
//   wait_for_death    -> deaths_ (no thread; pending until cancelled or removed)
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/sdk.h>

#include "computer_store.h"
#include "pending_death_waits.h"

namespace vc_process_backend {

class ProcessBackend {
 public:
  // [loop-thread] The descriptor's create_backend(): reads {"options":{"scratch-root":...}}.
  // On failure returns an error status and sets `error`; no thread was started then.
  static vc_status open(const vc_host_services* host, std::string_view config_json,
                        vc_backend** out_backend, std::string& error);

  // The operations, one per slot of vc_backend_ops. [loop-thread], never block.
  vc_status validate(vc::sdk::ValidateRequest request, const vc_op* op);
  vc_status ensure_image(vc::sdk::EnsureImageRequest request, const vc_op* op);
  vc_status create_computer(vc::sdk::CreateRequest request, const vc_op* op);
  vc_status attach(vc::sdk::AttachRequest request, const vc_op* op);
  vc_status list(vc::sdk::ListRequest request, const vc_op* op);
  vc_status restart(vc::sdk::ComputerRequest request, const vc_op* op);
  vc_status remove(vc::sdk::ComputerRequest request, const vc_op* op);
  vc_status factory_reset(vc::sdk::ComputerRequest request, const vc_op* op);
  vc_status exec(vc::sdk::ExecRequest request, std::string_view stdin_bytes, const vc_op* op);
  vc_status wait_for_death(vc::sdk::ComputerRequest request, const vc_op* op);
  vc_status tool_instructions(vc::sdk::ToolInstructionsRequest request, const vc_op* op);

  // [loop-thread] ops->cancel().
  void cancel(const vc_op* op) { registry_.cancel(op); }
  // [loop-thread] ops->destroy(): stops every plugin thread, then deletes the instance.
  void destroy();

  const vc::sdk::HostLog& log() const { return log_; }

 private:
  using Pending = vc::sdk::Pending;

  ProcessBackend(const vc_host_services* host, std::filesystem::path scratch_root);
  ~ProcessBackend() = default;

  // Accepts the op and runs `work` on the file-system lane; the op completes with its result
  // (or VC_E_CANCELLED when cancelled before it started).
  vc_status run_on_worker(const vc_op* op, std::function<vc::sdk::OpResult()> work);
  // Ends every wait_for_death of a computer whose directory this backend removed.
  void end_death_watches(const std::string& computer_id, std::string_view reason);
  // [worker] Runs one command on its computer's lane.
  vc::sdk::OpResult run_exec(const Pending& pending, const vc::sdk::ExecRequest& request,
                             std::string stdin_bytes, vc::sdk::CancelScope& scope);

  vc_backend handle_{};
  vc::sdk::HostLog log_;
  ComputerStore store_;
  vc::sdk::OpRegistry registry_;
  PendingDeathWaits deaths_;
  vc::sdk::WorkLanes execs_;
  vc::sdk::WorkLanes tasks_;  // last: its threads are joined first, while everything they use exists
};

}  // namespace vc_process_backend
