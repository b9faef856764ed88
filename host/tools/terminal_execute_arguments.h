// terminal_execute_arguments.h — terminal_execute's arguments turned into an ExecRequest, with
// the original's sanitisation, validation order and messages (docs/compatibility.md, "Argument
// checks").
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/failure.h"
#include "common/json.h"
#include "computers/computer_types.h"

namespace vc::tools {

// The most stdin a call may pipe, in UTF-8 bytes. Exactly this much is allowed.
constexpr size_t kStdinLimitBytes = size_t{2} * 1024 * 1024;

// In order: empty command / args / working_directory / stdin count as absent; both command and
// args → "Cannot provide both ..."; neither → "Must provide either ..."; a relative
// working_directory; timeout < 1; stdin over kStdinLimitBytes. The Failure's message is the
// text for the tool's error result. Absent or null arguments are absent; `timeout` defaults to
// `default_timeout_s`, and the output limit is always `output_limit` (there is no per-call one).
Expected<computers::ExecRequest> read_terminal_execute_arguments(const Json& arguments,
                                                                 int64_t default_timeout_s,
                                                                 uint64_t output_limit);

}  // namespace vc::tools
