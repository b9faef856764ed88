// schema_validator.h — checks tool arguments against the tool's inputSchema.
//
// Only the JSON Schema subset our tools use is understood: type (one name or a list),
// properties, required, additionalProperties (bool or schema), items (one schema), enum,
// const, minimum/maximum, exclusiveMinimum/exclusiveMaximum (numbers), minLength/maxLength,
// pattern (ECMA-262, unanchored; strings over 4 KiB are refused unmatched), minItems/maxItems.
// Other keywords (description, title, default, ...) are ignored.
// "integer" follows JSON Schema: any number with a zero fractional part (2 and 2.0, not 1.5).
// A null is only accepted where the type allows "null": an explicit null for an optional
// string is a violation, as in the original.
#pragma once

#include <optional>
#include <string>

#include "common/json.h"

namespace vc::mcp {

// The first violation, as a sentence that starts with the offending field's path
// ("timeout: \"abc\" is not of type 'integer'"), or nullopt when `instance` conforms.
std::optional<std::string> find_schema_violation(const Json& schema, const Json& instance);

// For a conforming instance: rewrites integral floats (2.0) as integers wherever the schema
// asks for "integer", so a tool can read them with get<int64_t>() / is_number_integer().
void normalize_integers(const Json& schema, Json& instance);

}  // namespace vc::mcp
