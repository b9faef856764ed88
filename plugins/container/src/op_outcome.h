// op_outcome.h — how an operation ends, before it is handed to vc_op.complete().
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include <vc-backend-1/vc_status.h>

namespace vc::container {

// A failed operation: the status, the sentence for the user and optional details
// (schemas/error_details.json: {"code":"docker.<reason>","retryable":bool,...}).
struct OpFailure {
  vc_status status = VC_E_FAILED;
  std::string message;
  nlohmann::json details;  // object or null
};

// Either a result document (status >= 0) or a failure.
struct OpOutcome {
  vc_status status = VC_OK;
  nlohmann::json document;  // the result when status >= 0; the details when < 0
  std::string message;      // only when status < 0

  static OpOutcome ok(nlohmann::json result) { return OpOutcome{VC_OK, std::move(result), {}}; }
  static OpOutcome failed(OpFailure failure) {
    return OpOutcome{failure.status, std::move(failure.details), std::move(failure.message)};
  }
  bool succeeded() const { return status >= 0; }
};

// The failure every op completes with when the host cancelled it.
inline OpFailure cancelled_failure() {
  return OpFailure{VC_E_CANCELLED, "The operation was cancelled.", nullptr};
}

}  // namespace vc::container
