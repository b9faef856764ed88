// tool_description.cpp — terminal_execute's description: override, backend text, extension.
#include "tools/tool_description.h"

#include <vc-backend-1/vc_status.h>

namespace vc::tools {
namespace {

// The original's wording: these messages end the server's startup, so they say what to do.
constexpr const char* kBothInstructionFlags =
    "Cannot use both --tool-instruction-override and --extended-tool-instruction. Use override "
    "to replace the description entirely, or extended to append to the backend default.";
constexpr const char* kNoBackendInstructions =
    "Backend does not provide tool instructions describing the sandbox. Supply "
    "--tool-instruction-override to describe the capabilities of this sandbox (example 'a "
    "Debian Linux bash shell' or 'A minimal BusyBox shell with the following commands: ...').";

}  // namespace

Expected<std::string> assemble_tool_description(
    const std::optional<std::string>& override_text,
    const std::optional<std::string>& extended_text,
    const std::optional<std::string>& backend_instructions) {
  if (override_text && extended_text) return Failure{VC_E_INVALID_ARGUMENT, kBothInstructionFlags};
  if (override_text) return *override_text;
  if (!backend_instructions || backend_instructions->empty()) {
    return Failure{VC_E_INVALID_ARGUMENT, kNoBackendInstructions};
  }
  if (extended_text) return *backend_instructions + "\n\n" + *extended_text;
  return *backend_instructions;
}

}  // namespace vc::tools
