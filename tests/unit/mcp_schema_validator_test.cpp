// The inputSchema subset the session checks tool arguments against, and its refusal of the rest.
#include "mcp/schema_validator.h"

#include <gtest/gtest.h>

#include <string>

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
            R"(outer.name: "abcd" is too long (4, at most 3))");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"list": []})")), "list: [] is too short");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"list": [1,2,3]})")),
            "list: [1,2,3] is too long (3, at most 2)");
}

TEST(SchemaValidator, PatternSearchesWithEcmaScriptSyntax) {
  const Json schema = Json::parse(R"({"type": "object", "properties": {
      "id": {"type": "string", "pattern": "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"},
      "loose": {"type": "string", "pattern": "b+"}}})");
  EXPECT_EQ(find_schema_violation(schema, Json{{"id", "my-box-1"}}), std::nullopt);
  EXPECT_EQ(find_schema_violation(schema, Json{{"id", "Bad_ID"}}),
            R"(id: "Bad_ID" does not match '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$')");
  EXPECT_NE(find_schema_violation(schema, Json{{"id", "-edge"}}), std::nullopt);
  EXPECT_EQ(find_schema_violation(schema, Json{{"loose", "abba"}}), std::nullopt) << "unanchored";
  EXPECT_NE(find_schema_violation(schema, Json{{"loose", "aaa"}}), std::nullopt);
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

TEST(SchemaValidator, AnnotationsConstrainNothing) {
  // "format" is not asserted, as in the original.
  EXPECT_EQ(find_schema_violation(
                Json::parse(R"({"title": "t", "description": "x", "format": "uri", "default": 1,
                               "examples": [1], "$comment": "c", "readOnly": true,
                               "$schema": "https://json-schema.org/draft/2020-12/schema"})"),
                5),
            std::nullopt);
}

TEST(SchemaValidator, BooleanSchemas) {
  EXPECT_EQ(find_schema_violation(Json(true), Json::object()), std::nullopt);
  EXPECT_EQ(find_schema_violation(Json(false), 1), "False schema does not allow 1");
  const Json schema = Json::parse(R"({"properties": {"gone": false}, "items": false})");
  EXPECT_EQ(find_schema_violation(schema, Json{{"gone", 1}}),
            "gone: False schema does not allow 1");
  EXPECT_EQ(find_schema_violation(schema, Json::array({"a"})),
            R"(arguments[0]: False schema does not allow "a")");
}

TEST(SchemaValidator, EqualityIgnoresMemberOrderAndNumberForm) {
  const Json schema =
      Json::parse(R"({"const": {"a": 1, "b": [2.0]}, "enum": [{"b": [2], "a": 1.0}]})");
  EXPECT_EQ(find_schema_violation(schema, Json::parse(R"({"b": [2], "a": 1})")), std::nullopt);
  EXPECT_NE(find_schema_violation(schema, Json::parse(R"({"b": [true], "a": 1})")), std::nullopt);
  EXPECT_EQ(find_schema_violation(Json::parse(R"({"enum": [false]})"), 0),
            "0 is not one of [false]");
}

std::string refusal(const char* schema) {
  try {
    check_schema_supported(Json::parse(schema));
  } catch (const UnsupportedSchemaError& error) {
    // find_schema_violation refuses the same schema the same way.
    EXPECT_THROW(find_schema_violation(Json::parse(schema), Json::object()),
                 UnsupportedSchemaError);
    return error.what();
  }
  return "accepted";
}

TEST(SchemaValidator, UnsupportedKeywordsAreRefusedWithTheirLocation) {
  EXPECT_EQ(
      refusal(R"({"properties": {"env": {"type": "object", "patternProperties": {"^A": {}}}}})"),
      "schema cannot be enforced: keyword 'patternProperties' at #/properties/env is not "
      "supported");
  EXPECT_EQ(refusal(R"({"$dynamicRef": "#meta"})"),
            "schema cannot be enforced: keyword '$dynamicRef' at # is not supported");
  EXPECT_EQ(refusal(R"({"items": {"anyOf": [{}]}})"),
            "schema cannot be enforced: keyword 'anyOf' at #/items is not supported");
  EXPECT_EQ(refusal(R"({"additionalProperties": {"$ref": "#"}})"),
            "schema cannot be enforced: keyword '$ref' at #/additionalProperties is not supported");
  EXPECT_EQ(refusal(R"({"properties": {"a/b": {"x-vendor": 1}}})"),
            "schema cannot be enforced: keyword 'x-vendor' at #/properties/a~1b is not supported");
  EXPECT_EQ(refusal(R"({"items": [{}]})"),
            "schema cannot be enforced: keyword 'items' at # is an array of schemas (tuple "
            "validation), which is not supported");
  // A property merely named like a keyword is data, not a keyword.
  EXPECT_EQ(refusal(R"({"properties": {"$ref": {"type": "string"}, "allOf": {}}})"), "accepted");
}

TEST(SchemaValidator, MalformedKeywordsAreRefused) {
  EXPECT_EQ(refusal(R"({"type": "strng"})"),
            R"(schema cannot be enforced: keyword 'type' at # names an unknown type "strng")");
  EXPECT_EQ(refusal(R"({"properties": {"n": {"minLength": -1}}})"),
            "schema cannot be enforced: keyword 'minLength' at #/properties/n must be a "
            "non-negative integer");
  EXPECT_EQ(refusal(R"({"exclusiveMinimum": true})"),
            "schema cannot be enforced: keyword 'exclusiveMinimum' at # must be a number");
  EXPECT_EQ(refusal(R"({"required": true})"),
            "schema cannot be enforced: keyword 'required' at # must be an array of strings");
  EXPECT_EQ(refusal(R"({"$schema": "http://json-schema.org/draft-04/schema#"})"),
            "schema cannot be enforced: keyword '$schema' at # names a dialect other than "
            "draft-06, draft-07, 2019-09 or 2020-12");
  EXPECT_EQ(refusal(R"({"properties": {"p": 5}})"),
            "schema cannot be enforced: a schema must be an object or a boolean "
            "(at #/properties/p)");
  const std::string broken = refusal(R"({"properties": {"id": {"pattern": "(unclosed"}}})");
  EXPECT_EQ(broken.rfind("schema cannot be enforced: keyword 'pattern' at #/properties/id is not a "
                         "regular expression this validator can compile (\"(unclosed\": ", 0),
            0U)
      << broken;
  EXPECT_EQ(refusal(R"({"minLength": 2.0, "maxItems": 3})"), "accepted");
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
