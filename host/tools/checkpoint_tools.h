// checkpoint_tools.h — checkpoint_create, checkpoint_list, checkpoint_restore and
// checkpoint_delete: the model's undo for the computer's files (docs/compatibility.md,
// "Checkpoint tools"). Offered when the backend keeps checkpoints, unless
// --no-checkpoint-tools; they act on the server's computer, and with --lifecycle-tools they
// also take an optional computer_id.
//
// Payloads: {ok, computer_id, sandbox_id, temporary, checkpoint} (create, restore);
// {computer_id, checkpoints:[...], count} (list); {ok, computer_id, name, deleted:true}
// (delete). Failures are {"error": ...} with isError. A name is checked against the rule
// before the backend is asked anything; checkpoint_restore asks the person first where the
// client can (confirmation.h) and may become a task.
//
// [loop-thread]: the tools run on the server's loop, as every tool.
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// The four tools, in tools/list order; none when the backend keeps no checkpoints. The
// context's registry and lifecycle outlive them.
std::vector<std::unique_ptr<mcp::Tool>> make_checkpoint_tools(const CatalogContext& context);

}  // namespace vc::tools
