// operation_documents.h — the JSON documents the registry exchanges with a backend, built and
// read in one place (their schemas: the SDK's <op>.request.json / <op>.result.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <vc-backend-1/vc_status.h>

#include "common/failure.h"
#include "common/json.h"
#include "computers/checkpoint_types.h"
#include "computers/computer_registry.h"
#include "computers/computer_types.h"

namespace vc::computers {

// attach: {"computer_id","network_access","desktop_environment","shell"}.
Json attach_request(const ComputerSettings& settings);

// create: {"computer_id","temporary":false,"network_access","desktop_environment",
// "workspace_directory","shell","adopt_existing":false}. This server's computer is always
// persistent. Creating never adopts an existing computer unless the caller sets
// "adopt_existing" (ABI 1.1) to true itself.
Json create_request(const ComputerSettings& settings);

// {"computer_id"}: wait_for_death and the other single-computer operations.
Json computer_request(const std::string& computer_id);

// exec: {"computer_id", "command"+"shell" | "argv", "working_directory"?, "timeout_ms",
// "output_limit"}. A timeout too large for milliseconds saturates instead of overflowing.
Json exec_request(const std::string& computer_id, const std::string& shell,
                  const ExecRequest& request);

// A computer info result; a malformed one is a Failure naming the bad field.
Expected<ComputerInfo> read_computer_info(const Json& result);

// What the exec result document says about the finished command.
struct ExecCompletion {
  int exit_code = 0;
  ExecOutcome outcome = ExecOutcome::exited;
  std::optional<int64_t> duration_ms;  // absent when the backend did not measure it
};
Expected<ExecCompletion> read_exec_result(const Json& result);

// ensure_image's outcome as a step before create: a backend without the operation (a NULL slot
// answers VC_E_UNSUPPORTED; the ABI makes it optional) has no image to prepare, so that is no
// reason not to create. Any other failure is.
inline bool image_step_failed(const Expected<Json>& result) {
  return !result.ok() && result.error().status != VC_E_UNSUPPORTED;
}

// create_checkpoint, restore_checkpoint, delete_checkpoint: {"computer_id","name"}.
Json checkpoint_request(const std::string& computer_id, const std::string& name);

// fork_checkpoint: {"computer_id","new_computer_id","name"?} (no name: the current files).
Json fork_request(const std::string& computer_id, const ForkSpec& spec);

// A create/restore/fork result {"checkpoint","computer"}, checked to describe `computer_id`
// (the new computer, for a fork). `checkpoint_expected`: the checkpoint may not be null (only
// a fork of the current files has none). A malformed one is a Failure naming the bad field.
Expected<CheckpointOutcome> read_checkpoint_outcome(const Json& result,
                                                    const std::string& computer_id,
                                                    bool checkpoint_expected);

// A list_checkpoints result {"computer_id","checkpoints":[...]}, in the backend's order
// (oldest first).
Expected<CheckpointListing> read_checkpoint_listing(const Json& result,
                                                    const std::string& computer_id);

// A delete_checkpoint result: Failure unless it says {"deleted": true}.
Expected<bool> read_checkpoint_deletion(const Json& result);

// One VC_STREAM_PROGRESS event: {"progress":n,"total":n?,"message":s?}.
// nullopt for anything that is not such an event (progress is advisory: a bad one is dropped).
std::optional<ProgressEvent> read_progress_event(std::string_view bytes);

}  // namespace vc::computers
