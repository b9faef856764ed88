// sdk.h — the whole optional C++20 layer of the backend SDK (target VcBackendSdk::cpp), on top
// of the C ABI of <vc-backend-1/vc_sdk.h>. Each header holds one concept and can be included on
// its own:
//   plugin_entry.h  the descriptor, option declarations and the exported entry
//   backend_ops.h   the vc_backend_ops table generated from a backend class; create_backend help
//   lane_ops.h      accepted ops whose work runs on a plugin thread, cancels wired
//   op_registry.h   accepted ops, each completed exactly once; cancel hooks
//   cancel_scope.h  aborting whatever step a multi-step operation is in
//   requests.h      typed, validated request documents; InvalidRequest
//   op_result.h     results and failures, and writing them to vc_op.complete()
//   expected.h      a value or an error, for calls that can fail
//   work_lanes.h    plugin threads for blocking work, in call order per computer
//   computer_info.h the computer info document
//   computer_id.h   the computer_id rule
//   host_log.h      the host's log service
#pragma once

#include <vc-backend-1/vc_sdk.h>

#include "backend_ops.h"
#include "cancel_scope.h"
#include "computer_id.h"
#include "computer_info.h"
#include "expected.h"
#include "host_log.h"
#include "lane_ops.h"
#include "op_registry.h"
#include "op_result.h"
#include "plugin_entry.h"
#include "requests.h"
#include "work_lanes.h"
