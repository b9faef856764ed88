// The inputSchema subset the session checks tool arguments against.
#include "mcp/schema_validator.h"

#include <gtest/gtest.h>

namespace vc::mcp {
namespace {

const Json kTerminalSchema = Json::parse(R"({
  "type": "object",
  "properties": {
    "command": {"type": "string"},
    "args": {"type": "array", "items": {"type": "string"}},
    "timeout": {"type": "integer", "minimum": 1},
    "mode": {"type": "string", "enum": ["a", "b"]},
    "clicks": {"type": "integer", "minimum": 1, "maximum": 3},
    "ratio": {"type": "number"},
    "maybe": {"type": ["string", "null"]}
  },
  "additionalProperties": false
})");

std::optional<std::string> violation(const char* arguments) {
  return find_schema_violation(kTerminalSchema, Json::parse(arguments));
}

TEST(SchemaValidator, AcceptsConformingArguments) {
  EXPECT_EQ(violation(R"({})"), std::nullopt);
  EXPECT_EQ(violation(R"({"command": "ls", "timeout": 5, "mode": "a"})"), std::nullopt);
  EXPECT_EQ(violation(R"({"args": ["ls", "-l"], "clicks": 3, "ratio": 0.5})"), std::nullopt);
  EXPECT_EQ(violation(R"({"maybe": null})"), std::nullopt);
  EXPECT_EQ(violation(R"({"maybe": "x"})"), std::nullopt);
}

TEST(SchemaValidator, IntegerFollowsJsonSchema) {
  EXPECT_EQ(violation(R"({"timeout": 2.0})"), std::nullopt);
  EXPECT_EQ(violation(R"({"timeout": 1.5})"), "timeout: 1.5 is not of type 'integer'");
  EXPECT_EQ(violation(R"({"ratio": 2})"), std::nullopt);  // an integer is a number
}

TEST(SchemaValidator, WrongTypeNamesTheField) {
  EXPECT_EQ(violation(R"({"timeout": "abc"})"), R"(timeout: "abc" is not of type 'integer')");
  EXPECT_EQ(violation(R"({"command": 5})"), "command: 5 is not of type 'string'");
  EXPECT_EQ(violation(R"({"args": "ls"})"), R"(args: "ls" is not of type 'array')");
  EXPECT_EQ(violation(R"({"args": ["ls", 7]})"), "args[1]: 7 is not of type 'string'");
  EXPECT_EQ(violation(R"({"maybe": 1})"), "maybe: 1 is not of type 'string', 'null'");
  EXPECT_EQ(violation(R"({"timeout": true})"), "timeout: true is not of type 'integer'");
}

TEST(SchemaValidator, ExplicitNullForAnOptionalFieldIsRejected) {
  EXPECT_EQ(violation(R"({"command": null})"), "command: null is not of type 'string'");
  EXPECT_EQ(violation(R"({"timeout": null})"), "timeout: null is not of type 'integer'");
}

TEST(SchemaValidator, BoundsEnumAndAdditionalProperties) {
  EXPECT_EQ(violation(R"({"timeout": 0})"), "timeout: 0 is less than the minimum of 1");
  EXPECT_EQ(violation(R"({"clicks": 4})"), "clicks: 4 is greater than the maximum of 3");
  EXPECT_EQ(violation(R"({"mode": "c"})"), R"(mode: "c" is not one of ["a","b"])");
  EXPECT_EQ(violation(R"({"extra": 1})"),
            "Additional properties are not allowed ('extra' was unexpected)");
  EXPECT_EQ(violation(R"({"x": 1, "y": 2})"),
            "Additional properties are not allowed ('x', 'y' were unexpected)");
}

TEST(SchemaValidator, RequiredProperties) {
  const Json schema = Json::parse(R"({"type": "object", "properties": {"enabled": {"type": "boolean"}},
                                      "required": ["enabled"]})");
  EXPECT_EQ(find_schema_violation(schema, Json::object()), "'enabled' is a required property");
  EXPECT_EQ(find_schema_violation(schema, Json{{"enabled", false}}), std::nullopt);
}

TEST(SchemaValidator, NestedObjectsAndLengths) {
  const Json schema = Json::parse(R"({"type": "object", "properties": {
      "outer": {"type": "object", "properties": {"name": {"type": "string", "minLength": 2,
                "maxLength": 3}}, "required": ["name"]},
      "list": {"type": "array", "minItems": 1, "maxItems": 2}}})");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"outer": {}})")),
            "outer: 'name' is a required property");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"outer": {"name": "x"}})")),
            R"(outer.name: "x" is too short)");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"outer": {"name": "\u00e9\u00e9\u00e9"}})")),
            std::nullopt);  // lengths count characters, not bytes
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"outer": {"name": "abcd"}})")),
            R"(outer.name: "abcd" is too long)");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"list": []})")), "list: [] is too short");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"list": [1,2,3]})")),
            "list: [1,2,3] is too long");
}

TEST(SchemaValidator, PatternSearchesWithEcmaScriptSyntax) {
  const Json schema = Json::parse(R"({"type": "object", "properties": {
      "id": {"type": "string", "pattern": "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"},
      "loose": {"type": "string", "pattern": "b+"},
      "broken": {"type": "string", "pattern": "(unclosed"}}})");
  EXPECT_EQ(find_schema_violation(schema, Json{{"id", "my-box-1"}}), std::nullopt);
  EXPECT_EQ(find_schema_violation(schema, Json{{"id", "Bad_ID"}}),
            R"(id: "Bad_ID" does not match '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$')");
  EXPECT_NE(find_schema_violation(schema, Json{{"id", "-edge"}}), std::nullopt);
  EXPECT_EQ(find_schema_violation(schema, Json{{"loose", "abba"}}), std::nullopt) << "unanchored";
  EXPECT_NE(find_schema_violation(schema, Json{{"loose", "aaa"}}), std::nullopt);
  EXPECT_EQ(find_schema_violation(schema, Json{{"broken", "x"}}), std::nullopt);
  // Huge strings are refused before the regex engine sees them (it recurses per character).
  const auto huge = find_schema_violation(schema, Json{{"loose", std::string(1 << 20, 'b')}});
  ASSERT_TRUE(huge.has_value());
  EXPECT_NE(huge->find("is too long to match 'b+'"), std::string::npos) << *huge;
}

TEST(SchemaValidator, LongValuesAreShortenedInMessages) {
  const std::string big(1000, 'x');
  const auto problem = find_schema_violation(kTerminalSchema, Json{{"timeout", big}});
  ASSERT_TRUE(problem);
  EXPECT_LT(problem->size(), 120u);
  EXPECT_NE(problem->find("..."), std::string::npos);
}

TEST(SchemaValidator, UnknownKeywordsAndNonObjectSchemasConstrainNothing) {
  EXPECT_EQ(find_schema_violation(Json::parse(R"({"description": "x", "format": "uri"})"), 5),
            std::nullopt);
  EXPECT_EQ(find_schema_violation(Json(true), Json::object()), std::nullopt);
}

TEST(SchemaValidator, NormalizeIntegersRewritesIntegralFloats) {
  Json arguments = Json::parse(R"({"timeout": 2.0, "ratio": 3.0, "args": ["a"]})");
  normalize_integers(kTerminalSchema, arguments);
  EXPECT_TRUE(arguments["timeout"].is_number_integer());
  EXPECT_EQ(arguments["timeout"], 2);
  EXPECT_TRUE(arguments["ratio"].is_number_float());  // "number" keeps its form
}

}  // namespace
}  // namespace vc::mcp
