// json.h — the JSON type of the test helpers. Ordered: it keeps keys in the order the server
// wrote them, because the order is part of what some tests check (the original's payloads).
#pragma once

#include <nlohmann/json.hpp>

namespace vc::test {

using Json = nlohmann::ordered_json;

}  // namespace vc::test
