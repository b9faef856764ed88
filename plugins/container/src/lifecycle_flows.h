// lifecycle_flows.h — the operations that change or describe a computer as a whole: create,
// attach, restart, remove, factory reset, network access, list, desktop state.
//
// Each flow is a short chain of engine calls run on the EngineLoop thread. The backend runs
// the flows of one computer one at a time (its record's lifecycle lane) and completes the op
// with what `done` receives. A flow checks ownership before it touches a container: a
// container named kilntainer-<id> without our computer-id label is refused and left alone.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/requests.h>

#include "container_calls.h"
#include "container_records.h"
#include "container_spec.h"

namespace vc::container {

// The readiness probe's marker (docs/compatibility.md, "Getting the computer"):
// `<shell> -c "echo kilntainers-ready"`.
inline constexpr const char* kReadinessMarker = "kilntainers-ready";

struct CreateRequest {
  ContainerSpec spec;
  bool network_access = true;
  std::string shell;
  bool adopt_existing = false;  // the create request's "adopt_existing" (ABI 1.1)
};

// attach runs with its request as the SDK parsed it.
using AttachRequest = sdk::AttachRequest;

using FlowScope = std::shared_ptr<CancelScope>;
using Record = std::shared_ptr<ComputerRecord>;

// Creates and starts the computer and waits until it runs commands. An existing container of
// ours with that name, found first or created by somebody else meanwhile, is adopted (like
// attach) when request.adopt_existing is set and refused with VC_E_ALREADY_EXISTS otherwise; a
// stranger's is always refused.
void run_create(BackendContext& ctx, FlowScope scope, Record record, CreateRequest request,
                Callback<nlohmann::json> done);

// Adopts an existing computer: starts it if stopped, checks readiness, applies the network
// state. VC_E_NOT_FOUND when there is no such container.
void run_attach(BackendContext& ctx, FlowScope scope, Record record, AttachRequest request,
                Callback<nlohmann::json> done);

// POST restart (the writable layer is kept), readiness, the previous network state again.
void run_restart(BackendContext& ctx, FlowScope scope, Record record,
                 Callback<nlohmann::json> done);

// Forced delete; {"computer_id","removed":false} when there was nothing to delete.
void run_remove(BackendContext& ctx, FlowScope scope, Record record,
                Callback<nlohmann::json> done);

// Delete, then create again with the same id, image, temporary flag, workspace and network
// state (read from the old container's labels and networks).
void run_factory_reset(BackendContext& ctx, FlowScope scope, Record record,
                       Callback<nlohmann::json> done);

void run_set_network_access(BackendContext& ctx, FlowScope scope, Record record, bool enabled,
                            Callback<nlohmann::json> done);

// The live desktop state {"enabled","desktop_url"}: always off for headless computers.
void run_get_desktop_environment(BackendContext& ctx, FlowScope scope, Record record,
                                 Callback<nlohmann::json> done);

// Switches Xfce on or off in place (same container, same files). A headless or custom-image
// computer refuses "on" with the original's message and reports itself for "off".
void run_set_desktop_environment(BackendContext& ctx, FlowScope scope, Record record,
                                 bool enabled, Callback<nlohmann::json> done);

// The refusal of a desktop on a computer not made from the bundled desktop image.
OpFailure desktop_refused(const BackendContext& ctx, const std::string& computer_id);

// --- building blocks, shared with the checkpoint flows (checkpoint_flows.h) ------------------

// The failures every flow uses: no such computer; the computer exists; the name is a stranger's.
OpFailure missing_computer(const BackendContext& ctx, const std::string& computer_id);
OpFailure existing_computer(const BackendContext& ctx, const std::string& computer_id);
OpFailure foreign_container(const BackendContext& ctx, const std::string& computer_id);

// Inspects the computer's container and refuses a stranger's. nullopt = no such container.
void inspect_owned(BackendContext& ctx, const FlowScope& scope, const Record& record,
                   Callback<std::optional<nlohmann::json>> done);

// The continuation of a flow that needs the computer's container: the inspect document and the
// flow's `done`.
using WithContainer =
    std::function<void(nlohmann::json container, Callback<nlohmann::json> finish)>;

// Inspects the computer's own container and runs `next` with it. A failed inspect ends the flow
// with its failure, a missing container with VC_E_NOT_FOUND (missing_computer).
void with_existing(BackendContext& ctx, const FlowScope& scope, const Record& record,
                   Callback<nlohmann::json> done, WithContainer next);

// Takes an owned container into service: started (or unpaused) if needed, answering commands,
// with the network state asked for (nullopt: as recorded) and, for a desktop computer, the Xfce
// mode asked for (nullopt: as its marker says). Yields its computer info. `container` is a
// fresh inspect document of it.
void bring_up(BackendContext& ctx, FlowScope scope, Record record, std::string shell,
              std::optional<bool> network_access, std::optional<bool> desktop_environment,
              nlohmann::json container, Callback<nlohmann::json> done);

// Creates the container from request.spec, parks it offline when asked, starts it and brings it
// up. The name must be free (a name taken meanwhile is adopted or refused as run_create says).
// A container that was created but could not be started is removed again.
void create_fresh(BackendContext& ctx, FlowScope scope, Record record, CreateRequest request,
                  Callback<nlohmann::json> done);

// Inspects the computer again and describes it (its computer info); `live_desktop` reads the
// live Xfce state of a running desktop computer, otherwise the last state seen is used.
void describe_again(BackendContext& ctx, const Record& record, bool live_desktop,
                    Callback<nlohmann::json> done);

// The host folders recorded on `container` (and who owns what is made in them) put on `spec`:
// a container made again for the computer keeps them (docs/mounts.md).
void keep_mounts(const nlohmann::json& container, ContainerSpec& spec, MountOwner fallback_owner);

// A label of an inspect document, or `fallback`.
std::string label_of(const nlohmann::json& container, const char* key, std::string fallback);

// Every computer of this server, from one label-filtered container list call (and one volume
// list for desktop computers' network switches).
void run_list(BackendContext& ctx, FlowScope scope, Callback<nlohmann::json> done);
void list_containers(BackendContext& ctx, const FlowScope& scope, std::set<std::string> blocked,
                     Callback<nlohmann::json> done);

}  // namespace vc::container
