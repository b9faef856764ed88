// op_result.h — how an operation ends, and writing that end to vc_op.complete().
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp).
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/vc_status.h>

namespace vc::sdk {

// A failed operation: its status (< 0), the one sentence the user sees, and optional details
// (schemas/error_details.json: {"code":"<backend>.<reason>","retryable":bool,...}).
struct OpFailure {
  vc_status status = VC_E_FAILED;
  std::string message;
  nlohmann::json details;  // an object, or null for none
};

// Either a result document (status >= 0) or a failure.
struct OpResult {
  vc_status status = VC_OK;
  nlohmann::json document;  // the result when status >= 0; the details (or null) when < 0
  std::string message;      // only when status < 0

  static OpResult ok(nlohmann::json result) { return OpResult{VC_OK, std::move(result), {}}; }
  static OpResult failed(OpFailure failure) {
    return OpResult{failure.status, std::move(failure.details), std::move(failure.message)};
  }
  static OpResult error(vc_status status, std::string message, nlohmann::json details = nullptr) {
    return OpResult{status, std::move(details), std::move(message)};
  }
  // What an op completes with when the host cancelled it before it finished.
  static OpResult cancelled();
  bool succeeded() const { return status >= 0; }
};

// The failure of OpResult::cancelled(), for code that builds OpFailure values.
inline OpFailure cancelled_failure() {
  return OpFailure{VC_E_CANCELLED, "The operation was cancelled.", nullptr};
}

inline OpResult OpResult::cancelled() { return failed(cancelled_failure()); }

// [any-thread] Calls op->complete() with `result`. The caller guarantees it is the op's one
// completion (OpRegistry::complete does). Invalid UTF-8 in the document is replaced rather than
// thrown on: a command's output must not turn a result into an exception.
inline void complete_op(const vc_op* op, const OpResult& result) {
  std::string json;
  if (result.status >= 0 || !result.document.is_null()) {
    json = result.document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  op->complete(op, result.status, json.empty() ? nullptr : json.data(), json.size(),
               result.message.empty() ? nullptr : result.message.data(), result.message.size());
}

}  // namespace vc::sdk
