// helper_exec.h — short commands the plugin itself runs inside a container (the readiness
// check, the in-container process-group kill), and reading an exec's final state.
//
// EngineLoop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "container_calls.h"

namespace vc::container {

// GET /exec/{id}/json, the fields the plugin uses.
struct ExecState {
  bool running = false;
  std::optional<std::int64_t> exit_code;  // set once running is false
  std::int64_t pid = 0;                   // host PID of the exec'd process (0 when unknown)
  std::string container_id;
};

// Reads the exec's state; while the engine still says Running (it may lag the end of the
// stream by a few milliseconds) retries up to `attempts` times, 10 ms apart.
void inspect_exec(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                  const std::string& exec_id, int attempts, Callback<ExecState> done);

struct HelperExecRequest {
  std::string container;  // name or id
  std::vector<std::string> argv;
  std::optional<std::string> user;  // "0" for root; nullopt = the image's user
  std::chrono::milliseconds timeout{std::chrono::seconds(15)};
};

struct HelperExecResult {
  std::int64_t exit_code = -1;
  std::string stdout_text;  // at most 64 KiB each: helpers print little
  std::string stderr_text;
};

// Creates, starts and waits for a helper exec with stdin closed. A timeout is an
// VC_E_TIMEOUT failure (the process may go on running).
void run_helper_exec(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     HelperExecRequest request, Callback<HelperExecResult> done);

// POST /containers/{name}/exec with `body`; yields the exec id. A container that is not running
// (409) or is gone (404) yields VC_E_COMPUTER_STOPPED / VC_E_NOT_FOUND so callers can tell.
void create_exec(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                 const std::string& container, const nlohmann::json& body,
                 Callback<std::string> done);

}  // namespace vc::container
