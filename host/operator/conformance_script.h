// conformance_script.h — the operations validate-plugin runs against a fresh backend instance,
// in order, on a scratch computer it creates and always removes at the end.
//
// validate, ensure_image (VC_CAP_IMAGES; the server runs it before create), create, attach, list (the computer appears); exec: exit 0, a non-zero exit code,
// stdout and stderr bytes intact, timed_out, output_limit_exceeded, stdin (VC_CAP_EXEC_STDIN),
// cancel of a running command; restart (VC_CAP_RESTART; a file survives it when
// VC_CAP_PERSISTENT); factory_reset (VC_CAP_FACTORY_RESET; a file is gone after it);
// set_network_access off and on again (VC_CAP_NETWORK_ACCESS; the result says so each time);
// wait_for_death (VC_CAP_WAIT_FOR_DEATH; it waits while the computer runs, and a cancel ends
// it); remove (the computer leaves the listing; a second remove says removed=false);
// tool_instructions (a string or null; a backend without it is skipped); the checkpoints
// extension when the plugin returns it (its table whole: ABI 1.2's size, no NULL slot;
// list_checkpoints on the new computer answers an empty list; create_checkpoint refuses a
// malformed name with VC_E_INVALID_ARGUMENT), "skipped (no checkpoints extension)" when it
// does not; the processes extension the same way (its table whole: ABI 1.3's size, no NULL
// slot; list_processes on the new computer answers a "processes" array; read_process refuses
// the process_id "p0" with VC_E_INVALID_ARGUMENT), "skipped (no processes extension)" without
// it; and, over the whole run, no contract violation (every accepted op completes exactly
// once, no emit after completing). An operation the capabilities do not declare is "skipped
// (not declared)".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <uv.h>

#include "backend_proxy/backend.h"
#include "computers/operation_documents.h"
#include "operator/misbehaviour_log.h"
#include "operator/op_probe.h"
#include "operator/plugin_check_report.h"

namespace vc::operator_cli {

struct ScriptSettings {
  std::string computer_id;     // the scratch computer, e.g. "vc-validate-1a2b3c4d"
  uint64_t op_timeout_ms = 30000;
  std::string shell = "/bin/sh";  // every image and host has it
};

class ConformanceScript {
 public:
  // [loop-thread] `report` must outlive the run.
  ConformanceScript(uv_loop_t* loop, std::shared_ptr<backend_proxy::Backend> backend,
                    std::shared_ptr<MisbehaviourLog> log, ScriptSettings settings,
                    PluginCheckReport& report);

  // [loop-thread] Runs every step; `done` runs on the loop once the last check is recorded.
  void start(std::function<void()> done);

  // [loop-thread] Ctrl-C: cancels the running op and skips what is left, except the removal
  // of the scratch computer (and its checks), which still runs.
  void interrupt(const std::string& why);

 private:
  using Step = void (ConformanceScript::*)();
  using ExecDone = std::function<void(const ProbeResult&, const Expected<computers::ExecCompletion>&)>;

  void next();
  void after(uint64_t ms, std::function<void()> fn);
  bool declared(vc_caps capability) const;
  // Records `name` as skipped and moves on when an earlier step made it impossible.
  bool skipped_after_abort(const char* name);
  // probe_.run, keeping the handle for interrupt().
  CancelHandle run_op(backend_proxy::Operation op, const Json& request, ProbeOptions options,
                      std::function<void(ProbeResult)> done);
  void exec(const std::string& command, ProbeOptions options, uint64_t timeout_ms, ExecDone done);

  void step_validate();
  void step_ensure_image();
  void step_create();
  void step_attach();
  void step_list();
  void step_checkpoints_table();
  void step_list_checkpoints();
  void step_checkpoint_name_refused();
  void step_processes_table();
  void step_list_processes();
  void step_process_id_refused();
  void step_exec_exit_zero();
  void step_exec_exit_code();
  void check_exit_code(const char* check, int code, std::string pass_note);
  void step_exec_streams();
  void step_exec_timeout();
  void step_exec_output_limit();
  void step_exec_stdin();
  void step_exec_cancel();
  void step_restart();
  void step_factory_reset();
  // What restart and factory_reset share: the op's own check, then a file written before it
  // read back afterwards (conformance_script.cpp).
  struct MarkerOpCheck;
  void step_marker_op(const MarkerOpCheck& check);
  void step_network_access();
  void switch_network(bool enabled, std::function<void(std::optional<std::string>)> done);
  void step_wait_for_death();
  void step_tool_instructions();
  void step_remove();
  void step_list_after_remove();
  void step_remove_again();
  void step_contract();
  void check_non_blocking();

  uv_loop_t* loop_;
  std::shared_ptr<backend_proxy::Backend> backend_;
  std::shared_ptr<MisbehaviourLog> log_;
  ScriptSettings settings_;
  PluginCheckReport& report_;
  OpProbe probe_;
  vc_caps caps_ = 0;
  std::vector<Step> steps_;
  size_t next_step_ = 0;
  std::optional<std::string> aborted_;  // why the remaining computer steps cannot run
  bool create_attempted_ = false;
  bool removed_ = false;
  std::function<void()> done_;
  CancelHandle running_;  // the op started last
};

}  // namespace vc::operator_cli
