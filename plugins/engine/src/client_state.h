// client_state.h — what an EngineClient shares with its in-flight calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "vc_engine/engine_client.h"

namespace vc::engine::detail {

struct ClientState {
  ClientState(EngineLoop& engine_loop, EngineAddress engine_address, ClientOptions client_options)
      : loop(engine_loop), address(std::move(engine_address)), options(std::move(client_options)) {}

  EngineLoop& loop;
  const EngineAddress address;
  const ClientOptions options;

  // Shared with in-flight calls, which may outlive the client (see connection_losses()).
  const std::shared_ptr<std::atomic<std::uint64_t>> connection_losses =
      std::make_shared<std::atomic<std::uint64_t>>(0);

  mutable std::mutex mutex;  // guards the two members below
  std::optional<EngineInfo> info;
  std::string api_version{kMaximumApiVersion};

  std::string api_prefix() const {
    std::lock_guard lock(mutex);
    return "/v" + api_version;
  }
};

}  // namespace vc::engine::detail
