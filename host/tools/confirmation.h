// confirmation.h — asking the person before a tool destroys something, where the client can.
//
// computer_factory_reset and computer_delete lose a computer's files. When the request's
// client declares elicitation, the tool asks first:
//   - in a 2025 session, with an elicitation/create request to the client;
//   - in a 2026-07-28 request, with an input-required result (the client calls again with
//     the answer; the tool's sealed state names what was asked about).
// An answer of "accept" with confirm: true goes ahead; "decline", "cancel" or confirm: false
// ends the call with ok: false and nothing done. A client without elicitation is not asked:
// the tool goes ahead, as it always did (an orchestrator has no person to ask).
//
// [loop-thread]
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "mcp/tool.h"

namespace vc::tools {

// Runs `go` once the person agreed (or at once when the client cannot ask); otherwise
// finishes `call` with the refusal. `question` is shown to the person; `subject` (the
// computer's id) is what the answer is bound to.
void confirm_then(const std::shared_ptr<mcp::ToolCall>& call, const std::string& question,
                  const std::string& subject, std::function<void()> go);

}  // namespace vc::tools
