// computer_lifecycle.h — managing computers by id: list, create, restart, factory reset,
// delete, network access, checkpoints (create, list, restore, fork, delete), and a command whose
// output streams as it comes. What the --lifecycle-tools tools, the checkpoint tools and the
// operator's `computers` command do.
//
// Each operation validates the backend first (once per ComputerLifecycle), then runs the
// backend op(s); the backend's own message reaches the caller unchanged when one fails
// ("Cannot connect to the Docker engine at ..."). Operations on the server's own computer
// (the registry's) run inside the registry's maintenance window, so that restarting it is not
// mistaken for its death and the server goes on using it afterwards.
//
// Threading: every member, and every callback, runs on the loop thread. Each `done` runs
// exactly once, on a later loop turn. Cancelling a returned handle cancels the running backend
// op; `done` then reports VC_E_CANCELLED (or the op's real result if it had already finished).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cancellable.h"
#include "common/failure.h"
#include "computers/checkpoint_types.h"
#include "computers/computer_registry.h"
#include "computers/computer_types.h"

namespace vc::computers {

struct CreateSpec {
  std::string computer_id;  // slug-validated by the caller
  bool network_access = true;
  bool desktop_environment = false;
  // The create request's "mounts" (ABI 1.3), already checked by the caller; empty: none.
  Json mounts = Json::array();
};

// What switch_server_computer() turns on or off.
enum class ComputerSwitch { network_access, desktop_environment };

enum class OutputStream { stdout_stream, stderr_stream };
using OutputFn = std::function<void(OutputStream stream, std::string_view bytes)>;

// How a streamed command ended (its output went to the OutputFn).
struct StreamedExit {
  int exit_code = 0;
  ExecOutcome outcome = ExecOutcome::exited;
  int64_t duration_ms = 0;
};

class ComputerLifecycle {
 public:
  // `defaults` gives the shell and workspace of created computers. `registry` (may be null,
  // must outlive this object) owns the server's computer, `defaults.computer_id`.
  ComputerLifecycle(std::shared_ptr<backend_proxy::Backend> backend, ComputerSettings defaults,
                    ComputerRegistry* registry);
  ~ComputerLifecycle();
  ComputerLifecycle(const ComputerLifecycle&) = delete;
  ComputerLifecycle& operator=(const ComputerLifecycle&) = delete;

  // The backend's name ("docker", "podman", ...), as listings show it.
  const std::string& backend_name() const;

  // Every computer of this backend, sorted by computer id.
  CancelHandle list(std::function<void(Expected<std::vector<ComputerInfo>>)> done);

  // Makes the image new computers are created from available (the bundled desktop image is
  // built when missing or out of date), reporting progress. Yields the backend's action:
  // "present", "pulled" or "built".
  CancelHandle prepare_image(ProgressFn progress, std::function<void(Expected<std::string>)> done);

  // Creates and starts a new computer. VC_E_ALREADY_EXISTS ("Computer '<id>' already
  // exists.") when one with that id exists: creating never adopts or replaces.
  CancelHandle create(CreateSpec spec, ProgressFn progress,
                      std::function<void(Expected<ComputerInfo>)> done);

  // Restarts a computer, keeping its files. VC_E_NOT_FOUND when there is none.
  CancelHandle restart(const std::string& computer_id,
                       std::function<void(Expected<ComputerInfo>)> done);

  // Replaces a computer's files with a fresh image under the same id and settings.
  CancelHandle factory_reset(const std::string& computer_id,
                             std::function<void(Expected<ComputerInfo>)> done);

  // Deletes a computer and its files. VC_E_NOT_FOUND ("Computer '<id>' was not found.") when
  // there was nothing to delete.
  CancelHandle remove(const std::string& computer_id, std::function<void(Expected<bool>)> done);

  // Turns a computer's network access on or off; the result carries the effective state.
  CancelHandle set_network_access(const std::string& computer_id, bool enabled,
                                  std::function<void(Expected<ComputerInfo>)> done);

  // Switches a computer's Xfce desktop on or off in place; the result carries the live state.
  // A computer made from a headless or custom image refuses "on" (its data left untouched).
  CancelHandle set_desktop_environment(const std::string& computer_id, bool enabled,
                                       std::function<void(Expected<ComputerInfo>)> done);

  // The server's own computer (the registry's): acquires it — attaching to it or creating it
  // first, as any tool call does — then turns its network access or its desktop on or off.
  // VC_E_INVALID_ARGUMENT without a registry (the operator's `computers` command has none).
  // Unlike the other members, `done` may run before this returns: when the registry refuses
  // at once (the computer died, the server is shutting down) or there is no registry.
  CancelHandle switch_server_computer(ComputerSwitch which, bool enabled,
                                      std::function<void(Expected<ComputerInfo>)> done);

  // Whether the backend keeps checkpoints (the checkpoints extension). Without them every
  // checkpoint member below refuses with VC_E_UNSUPPORTED ("The <name> backend has no
  // checkpoints.") and no backend op runs.
  bool offers_checkpoints() const;

  // Checkpoints of a computer's files (ext/vc_backend_checkpoints.h). `computer_id` nullopt
  // means the server's own computer, acquired first as any tool call does
  // (VC_E_INVALID_ARGUMENT without a registry). A name is checked against the rule before any
  // backend op (VC_E_INVALID_ARGUMENT with checkpoint_name_problem()'s sentence). Unlike the
  // members above, `done` may run before these return: when the request is refused at once
  // (no checkpoints, a bad name or id, the registry refusing). The backend's failures reach
  // `done` unchanged (VC_E_NOT_FOUND: no such computer or checkpoint; VC_E_ALREADY_EXISTS: the
  // name or the fork's id is taken).

  // Saves the computer's files under a new name; the computer keeps running.
  CancelHandle create_checkpoint(const std::optional<std::string>& computer_id,
                                 const std::string& name, ProgressFn progress,
                                 std::function<void(Expected<CheckpointOutcome>)> done);

  // The computer's checkpoints, oldest first.
  CancelHandle list_checkpoints(const std::optional<std::string>& computer_id,
                                std::function<void(Expected<CheckpointListing>)> done);

  // Brings the computer's files back to a checkpoint, in place: the same id, settings, desktop
  // mode and network state; running processes are not brought back, and the computer runs
  // afterwards. The server's own computer is restored inside the registry's maintenance
  // window, as a restart is, so the replacement is not taken for its death.
  CancelHandle restore_checkpoint(const std::optional<std::string>& computer_id,
                                  const std::string& name, ProgressFn progress,
                                  std::function<void(Expected<CheckpointOutcome>)> done);

  // Makes a new computer, spec.new_computer_id, from a checkpoint or from the current files;
  // the source is untouched. `done` hears the new computer (running). The new id is checked
  // against the computer id rule and must differ from the source's (VC_E_INVALID_ARGUMENT).
  CancelHandle fork_checkpoint(ForkSpec spec, ProgressFn progress,
                               std::function<void(Expected<CheckpointOutcome>)> done);

  // Deletes one checkpoint; the computer and its files are untouched.
  CancelHandle delete_checkpoint(const std::optional<std::string>& computer_id,
                                 const std::string& name, std::function<void(Expected<bool>)> done);

  // Runs a command on an existing computer (started first if it is stopped, its network and
  // desktop state kept), handing output to `output` as it arrives. request.output_limit 0
  // means no limit. VC_E_NOT_FOUND when there is no such computer.
  CancelHandle exec(const std::string& computer_id, ExecRequest request, OutputFn output,
                    std::function<void(Expected<StreamedExit>)> done);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace vc::computers
