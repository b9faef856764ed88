// json.h — the host's JSON type. Ordered, because MCP results keep the key order the original
// produced (clients and tests compare it), and JSON-RPC replies read better that way.
#pragma once

#include <nlohmann/json.hpp>

namespace vc {
using Json = nlohmann::ordered_json;
}  // namespace vc
