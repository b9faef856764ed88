// terminal_execute_payload.h — the JSON terminal_execute answers with (docs/compatibility.md,
// "Result payload"), keys in
// the original's order because clients and tests compare it.
#pragma once

#include <cstdint>
#include <string>

#include "common/json.h"
#include "computers/computer_types.h"

namespace vc::tools {

// {"operation":"terminal_execute","computer_id","desktop_environment","error"}: the
// configured id and desktop flag, as the original reported them for every failure.
Json terminal_error_payload(const std::string& computer_id, bool desktop_environment,
                            const std::string& message);

// {"computer_id","operation","desktop_environment","network_access","desktop_url","stdout",
//  "stderr","exit_code","exec_duration_ms"}, identity from result.computer (the live state).
// A timeout reports exit 124 and an output overflow exit 1, each with empty stdout and a
// marker on stderr (partial output is discarded, as in the original). Output is decoded as
// UTF-8 with U+FFFD for invalid bytes.
Json terminal_success_payload(const computers::ExecResult& result,
                              const computers::ExecRequest& request);

// "[kilntainers: command timed out after {N}s]"
std::string timeout_marker(int64_t timeout_s);
// "[kilntainers: output limit exceeded ({limit} bytes). Command terminated. ...]"
std::string output_limit_marker(uint64_t output_limit);

}  // namespace vc::tools
