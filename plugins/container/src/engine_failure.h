// engine_failure.h — an engine call's EngineError turned into an op failure a user can act on.
//
// Every message names the engine and its address (or the object involved) and carries the
// engine's own words: "Cannot connect to the Docker engine at unix:///var/run/docker.sock:
// connection refused. Is dockerd running?". Pure; any thread.
#pragma once

#include <string_view>

#include <vc_engine/engine_error.h>

#include "engine_profile.h"
#include "expected.h"

namespace vc::container {

// `address` is the engine address as shown to users; `action` says what was being done, as a
// verb phrase completing "refused to ..." ("create container kilntainer-dev-1").
OpFailure failure_from_engine(const EngineProfile& profile, std::string_view address,
                              const engine::EngineError& error, std::string_view action);

// The message of an engine refusal without the status prefix: the engine's own text when it
// sent one, else the client's message.
std::string engine_reason(const engine::EngineError& error);

// The error details document: {"code":"<engine>.<reason>","retryable":bool} plus
// "engine_status" when the engine answered with an HTTP error.
nlohmann::json error_details(const EngineProfile& profile, std::string_view reason,
                             bool retryable, int engine_status = 0);

}  // namespace vc::container
