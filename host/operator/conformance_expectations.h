// conformance_expectations.h — what validate-plugin expects of one operation's outcome, as
// pure functions from a ProbeResult to "fine" or a reason a plugin author can act on.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <vc-backend-1/vc_backend.h>

#include "backend_proxy/backend.h"
#include "common/failure.h"
#include "common/json.h"
#include "computers/computer_types.h"
#include "computers/operation_documents.h"
#include "operator/op_probe.h"

namespace vc::operator_cli {

// Which capability bit, if any, makes an operation required. 0: every backend must have it,
// unless `capability_name` names the extension that brought it ("the checkpoints
// extension"): then a backend offering that extension must have it.
struct OpRequirement {
  const char* op_name;
  vc_caps capability = 0;     // the bit that declares it; 0 for the required operations
  const char* capability_name = nullptr;  // "VC_CAP_RESTART"
};

// [any-thread] What is wrong with the checkpoints table a plugin returned (smaller than ABI
// 1.2's, or a NULL slot), or nullopt when it is whole. Only for a returned table.
std::optional<std::string> checkpoints_table_problem(const backend_proxy::ExtensionOffer& offer);

// [any-thread] The same for the processes table (smaller than ABI 1.3's, or a NULL slot).
std::optional<std::string> processes_table_problem(const backend_proxy::ExtensionOffer& offer);

// [any-thread] What is wrong with a list_processes result for `computer_id`
// (schemas/list_processes.result.json): not an object, another computer_id, no "processes"
// array, an entry that is no object with a valid "process_id" and a "state"; nullopt when the
// host can read it. `count`, when given, receives the number of processes listed.
std::optional<std::string> process_listing_problem(const Json& result,
                                                   const std::string& computer_id,
                                                   size_t* count = nullptr);

// [any-thread] Why the op's outcome is not the refusal `expected` ("VC_E_INVALID_ARGUMENT")
// it should be, or nullopt when it is.
std::optional<std::string> refusal_problem(const ProbeResult& probe, const char* op_name,
                                           vc_status expected);

// [any-thread] Why the op's result cannot be used, or nullopt when it completed successfully,
// once, with a JSON object: never completed within the deadline, a contract violation logged
// while it ran, VC_E_UNSUPPORTED for an operation the capabilities (or the ABI) require, or
// any other failure with the plugin's message.
std::optional<std::string> op_problem(const ProbeResult& probe, const OpRequirement& requirement);

// [any-thread] The exec result read the way the host reads it, or the op's problem.
Expected<computers::ExecCompletion> exec_completion(const ProbeResult& probe);

// [any-thread] The computer info document read the way the host reads it, checked to describe
// `computer_id`.
Expected<computers::ComputerInfo> computer_info_for(const ProbeResult& probe,
                                                    const std::string& computer_id);

// [any-thread] Whether a list result names `computer_id`; a failure when it is malformed.
Expected<bool> listing_contains(const ProbeResult& probe, const std::string& computer_id);

// [any-thread] Bytes for a report line: printable ASCII as is, everything else as \xNN, cut
// after `limit` characters.
std::string visible_bytes(std::string_view bytes, size_t limit = 60);

// [any-thread] "exited", "timed_out", "output_limit_exceeded".
const char* exec_outcome_name(computers::ExecOutcome outcome);

}  // namespace vc::operator_cli
