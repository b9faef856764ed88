// tool_description.h — assembling terminal_execute's description at startup
// (docs/compatibility.md, "Tool description").
#pragma once

#include <optional>
#include <string>

#include "common/failure.h"

namespace vc::tools {

// 1. override and extended both given -> failure "Cannot use both ...".
// 2. override given -> the override.
// 3. backend instructions missing or empty -> failure "Backend does not provide tool
//    instructions describing the sandbox. Supply --tool-instruction-override ...".
// 4. otherwise the backend text, plus "\n\n" + extended when given.
Expected<std::string> assemble_tool_description(
    const std::optional<std::string>& override_text,
    const std::optional<std::string>& extended_text,
    const std::optional<std::string>& backend_instructions);

}  // namespace vc::tools
