// checkpoint_flows.h — the checkpoints extension's operations (ext/vc_backend_checkpoints.h)
// on container engines: a checkpoint is the computer's filesystem committed to an image
// (checkpoint_images.h). Running processes are not part of it.
//
// Each flow runs on the EngineLoop thread in the computer's lifecycle lane, like the other
// lifecycle flows, and completes with the document of the extension's result schema.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "lifecycle_flows.h"

namespace vc::container {

// Commits the computer's files under `name` (paused meanwhile; it goes on running). Refused
// when the name exists or the computer has ctx.options.max_checkpoints already.
void run_create_checkpoint(BackendContext& ctx, FlowScope scope, Record record, std::string name,
                           Callback<nlohmann::json> done);

// The computer's checkpoints, oldest first, with the size each adds.
void run_list_checkpoints(BackendContext& ctx, FlowScope scope, Record record,
                          Callback<nlohmann::json> done);

// Replaces the computer's container by one made from the checkpoint, keeping the id, settings,
// desktop mode and secret and network state: the new container is made while the old one waits
// stopped under <name>.replaced, and the old one is removed once the new one answers. When any
// step fails, the new container is removed and the old one is renamed back and started.
void run_restore_checkpoint(BackendContext& ctx, FlowScope scope, Record record, std::string name,
                            Callback<nlohmann::json> done);

// A new computer `target` from the checkpoint `name` of `source`, or from its current files.
void run_fork_checkpoint(BackendContext& ctx, FlowScope scope, Record source, Record target,
                         std::optional<std::string> name, Callback<nlohmann::json> done);

// Deletes the checkpoint `name` of the computer (which need not exist any more).
void run_delete_checkpoint(BackendContext& ctx, FlowScope scope, Record record, std::string name,
                           Callback<nlohmann::json> done);

}  // namespace vc::container
