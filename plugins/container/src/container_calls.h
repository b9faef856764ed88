// container_calls.h — one engine call each, with the engine's answers that mean "fine"
// folded in (304 "already started", 404 on delete) and errors turned into op failures that
// name the container. The building blocks of every flow.
//
// EngineLoop thread only (the callbacks run there too). `scope` may be null for a step that
// must not be interrupted (a rollback, the stop after a failed readiness check).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "backend_context.h"
#include "cancel_scope.h"
#include "expected.h"

namespace vc::container {

template <class T>
using Callback = std::function<void(Expected<T>)>;

// The seconds a container gets between SIGTERM and SIGKILL when this plugin stops or restarts
// it (the original's `docker stop -t 5`).
inline constexpr int kStopGraceSeconds = 5;

// GET /containers/{name}/json. nullopt when there is no such container.
void inspect_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const std::string& name, Callback<std::optional<nlohmann::json>> done);

// POST /containers/create?name=<name>. Yields the new container's id. A name conflict (409)
// yields VC_E_ALREADY_EXISTS; a missing image VC_E_NOT_FOUND.
void create_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      const std::string& name, const nlohmann::json& document,
                      Callback<std::string> done);

// POST /containers/{name}/start; "already running" (304) is success.
void start_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     const std::string& name, Callback<Done> done);

// POST /containers/{name}/unpause.
void unpause_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const std::string& name, Callback<Done> done);

// POST /containers/{name}/stop?t=5; "already stopped" (304) and "gone" (404) are success.
void stop_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                    const std::string& name, Callback<Done> done);

// POST /containers/{name}/restart?t=5.
void restart_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const std::string& name, Callback<Done> done);

// DELETE /containers/{name}?force=1. Yields false when there was no such container.
void remove_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      const std::string& name, Callback<bool> done);

// POST /containers/{name}/rename?name=<new_name>.
void rename_container(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                      const std::string& name, const std::string& new_name, Callback<Done> done);

// POST /networks/{network}/connect or /disconnect for container `name`.
void connect_network(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     const std::string& network, const std::string& name, Callback<Done> done);
void disconnect_network(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                        const std::string& network, const std::string& name,
                        Callback<Done> done);

}  // namespace vc::container
