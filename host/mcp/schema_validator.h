// schema_validator.h — checks tool arguments against the tool's inputSchema.
//
// Only the JSON Schema subset our tools use is implemented (draft-07 / 2020-12 semantics, which
// agree on all of it): type (one name or a list), enum, const, minimum/maximum,
// exclusiveMinimum/exclusiveMaximum (numbers), minLength/maxLength, pattern (ECMA-262 as
// std::regex knows it, unanchored; strings over 4 KiB are refused unmatched), items (one schema),
// minItems/maxItems, properties, required, additionalProperties, and the boolean schemas true and
// false. Annotations (title, description, default, examples, $comment, format, readOnly,
// writeOnly, deprecated, $schema naming draft-06 or later) are accepted and change nothing;
// "format" is not asserted, as in the original.
// Any other keyword (patternProperties, $ref, allOf, ..., or one nobody knows) makes the schema
// unsupported, and so does a malformed value of a known keyword: such a schema is refused with
// UnsupportedSchemaError rather than half-enforced.
// "integer" follows JSON Schema: any number with a zero fractional part (2 and 2.0, not 1.5).
// A null is only accepted where the type allows "null": an explicit null for an optional
// string is a violation, as in the original.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "common/json.h"

namespace vc::mcp {

// A schema this validator cannot enforce in full. what() names the keyword and where it is:
// "schema cannot be enforced: keyword 'patternProperties' at #/properties/env is not supported".
class UnsupportedSchemaError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws UnsupportedSchemaError when `schema` uses a keyword outside the subset above, or a
// known keyword with a malformed value (a pattern that does not compile, a negative minLength).
void check_schema_supported(const Json& schema);

// The first violation, as a sentence that starts with the offending field's path
// ("timeout: \"abc\" is not of type 'integer'"), or nullopt when `instance` conforms.
// Checks the schema first: throws UnsupportedSchemaError for a schema it cannot enforce.
std::optional<std::string> find_schema_violation(const Json& schema, const Json& instance);

// For a conforming instance: rewrites integral floats (2.0) as integers wherever the schema
// asks for "integer", so a tool can read them with get<int64_t>() / is_number_integer().
void normalize_integers(const Json& schema, Json& instance);

}  // namespace vc::mcp
