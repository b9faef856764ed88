// death_watch.cpp — wait_for_death and what its completion means.
#include "computers/death_watch.h"

#include <utility>

#include <spdlog/spdlog.h>
#include <vc-backend-1/vc_status.h>

#include "computers/operation_documents.h"

namespace vc::computers {
namespace {

constexpr size_t kShortSandboxIdLength = 12;

std::string death_reason(const Json& result) {
  auto reason = result.find("reason");
  std::string text = reason != result.end() && reason->is_string() ? reason->get<std::string>()
                                                                   : "stopped unexpectedly";
  auto exit_code = result.find("exit_code");
  if (exit_code != result.end() && exit_code->is_number_integer()) {
    text += " (exit code " + std::to_string(exit_code->get<int64_t>()) + ")";
  }
  return text;
}

void log_watch_end(const std::string& computer_id, const Failure& failure) {
  switch (failure.status) {
    case VC_E_CANCELLED:
      return;  // we stopped watching on purpose
    case VC_E_UNSUPPORTED:
      spdlog::debug("Not watching computer '{}' for unexpected death: {}", computer_id,
                    failure.message);
      return;
    default:
      spdlog::warn("Stopped watching computer '{}' for unexpected death: {} (status {})",
                   computer_id, failure.message, failure.status);
  }
}

}  // namespace

CancelHandle watch_for_death(backend_proxy::Backend& backend, const std::string& computer_id,
                             DeathWatchCallbacks watch) {
  backend_proxy::OpCallbacks callbacks;
  callbacks.on_emit = [](vc_stream, std::string_view) {};
  callbacks.on_complete = [computer_id, watch = std::move(watch)](Expected<Json> result) {
    if (!result.ok()) {
      log_watch_end(computer_id, result.error());
      if (result.error().status == VC_E_UNAVAILABLE && watch.on_engine_lost) {
        watch.on_engine_lost(result.error().message);
      }
      return;
    }
    if (watch.on_death) watch.on_death(death_reason(result.value()));
  };
  return backend.start(backend_proxy::Operation::wait_for_death, computer_request(computer_id),
                       std::move(callbacks));
}

std::string died_message(std::string_view sandbox_id) {
  return "Sandbox " + std::string(sandbox_id.substr(0, kShortSandboxIdLength)) +
         " died during command execution";
}

}  // namespace vc::computers
