// client_state.h — what an EngineClient shares with its in-flight calls.
#pragma once

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

  mutable std::mutex mutex;  // guards the two members below
  std::optional<EngineInfo> info;
  std::string api_version{kMaximumApiVersion};

  std::string api_prefix() const {
    std::lock_guard lock(mutex);
    return "/v" + api_version;
  }
};

}  // namespace vc::engine::detail
