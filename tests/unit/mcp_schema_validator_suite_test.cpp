// The argument validator against the official JSON-Schema-Test-Suite (draft-07, the newest draft
// Debian's json-schema-test-suite ships; it agrees with 2020-12 on every keyword we implement).
// Every file of a keyword we implement must pass in full, but for the groups listed in
// kRefusedGroups; every file of a keyword we do not implement must have its schemas refused.
// The suite's directory comes from VC_JSON_SCHEMA_TEST_SUITE_DIR: without it the tests fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "mcp/schema_validator.h"

#ifndef VC_JSON_SCHEMA_TEST_SUITE_DIR
#error "VC_JSON_SCHEMA_TEST_SUITE_DIR must name the installed JSON-Schema-Test-Suite"
#endif

namespace vc::mcp {
namespace {

namespace fs = std::filesystem;

const fs::path& draft_dir() {
  static const fs::path kDir = fs::path(VC_JSON_SCHEMA_TEST_SUITE_DIR) / "tests" / "draft7";
  return kDir;
}

// Keywords the validator implements: every case runs.
const std::vector<std::string> kImplemented = {
    "additionalProperties.json", "boolean_schema.json", "const.json",      "default.json",
    "enum.json",                 "exclusiveMaximum.json", "exclusiveMinimum.json", "items.json",
    "maxItems.json",             "maxLength.json",      "maximum.json",     "minItems.json",
    "minLength.json",            "minimum.json",        "pattern.json",     "properties.json",
    "required.json",             "type.json",           "optional/bignum.json",
    "optional/zeroTerminatedFloats.json"};

// Keywords it does not implement: their schemas must be refused, never half-enforced.
const std::vector<std::string> kNotImplemented = {
    "additionalItems.json", "allOf.json",         "anyOf.json",          "contains.json",
    "definitions.json",     "dependencies.json",  "if-then-else.json",   "maxProperties.json",
    "minProperties.json",   "multipleOf.json",    "not.json",            "oneOf.json",
    "patternProperties.json", "propertyNames.json", "ref.json",          "refRemote.json",
    "uniqueItems.json",     "optional/content.json"};

// "format" is an annotation here, as in the original (Python's jsonschema.validate asserts no
// format without a format checker): the suite's format files expect it asserted.
const std::vector<std::string> kFormatFiles = {"optional/ecmascript-regex.json"};
const fs::path kFormatDir = "optional/format";

struct RefusedGroup {
  const char* file;
  const char* group;
  const char* reason;
};

// Groups of implemented keywords whose schemas also use one we do not implement, so the whole
// schema is refused. Each must be refused (a stale entry fails).
const std::vector<RefusedGroup> kRefusedGroups = {
    {"additionalProperties.json",
     "additionalProperties being false does not allow other properties", "uses patternProperties"},
    {"additionalProperties.json", "non-ASCII pattern with additionalProperties",
     "uses patternProperties"},
    {"items.json", "an array of schemas for items", "tuple items (prefixItems in 2020-12)"},
    {"items.json", "items with boolean schemas", "tuple items (prefixItems in 2020-12)"},
    {"properties.json", "properties, patternProperties, additionalProperties interaction",
     "uses patternProperties"},
};

const RefusedGroup* listed_refusal(const std::string& file, const std::string& group) {
  for (const auto& refused : kRefusedGroups) {
    if (file == refused.file && group == refused.group) return &refused;
  }
  return nullptr;
}

Json load(const std::string& file) {
  std::ifstream in(draft_dir() / file);
  if (!in) {
    ADD_FAILURE() << "cannot read " << (draft_dir() / file)
                  << ": install json-schema-test-suite (scripts/install-deps.sh test)";
    return Json::array();
  }
  return Json::parse(in);
}

struct Counts {
  int run = 0;
  int passed = 0;
  int refused = 0;
};

// Runs one group's cases; returns false when the validator refused the schema.
bool run_group(const std::string& file, const Json& group, Counts& counts) {
  const Json& schema = group.at("schema");
  try {
    check_schema_supported(schema);
  } catch (const UnsupportedSchemaError&) {
    counts.refused += static_cast<int>(group.at("tests").size());
    return false;
  }
  for (const auto& test : group.at("tests")) {
    ++counts.run;
    const bool expected = test.at("valid").get<bool>();
    const auto violation = find_schema_violation(schema, test.at("data"));
    if (violation.has_value() != expected) {
      ++counts.passed;
    } else {
      ADD_FAILURE() << file << " / " << group.at("description").get<std::string>() << " / "
                    << test.at("description").get<std::string>() << ": expected "
                    << (expected ? "valid" : "invalid") << ", got "
                    << violation.value_or("valid") << "\n  schema " << schema.dump()
                    << "\n  data " << test.at("data").dump();
    }
  }
  return true;
}

void report(const std::string& file, const Counts& counts) {
  std::printf("[suite] %-36s %3d run, %3d passed, %3d refused\n", file.c_str(), counts.run,
              counts.passed, counts.refused);
}

// "optional/bignum.json" -> "optional_bignum": gtest names allow only letters, digits and '_'.
std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.find(".json"));
  std::replace_if(name.begin(), name.end(),
                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; }, '_');
  return name;
}

TEST(SchemaValidatorSuite, IsInstalledAndEveryFileIsAccountedFor) {
  ASSERT_TRUE(fs::is_directory(draft_dir()))
      << draft_dir()
      << " is missing: install json-schema-test-suite (scripts/install-deps.sh test)";
  std::set<std::string> known(kImplemented.begin(), kImplemented.end());
  known.insert(kNotImplemented.begin(), kNotImplemented.end());
  known.insert(kFormatFiles.begin(), kFormatFiles.end());
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(draft_dir())) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    const fs::path relative = fs::relative(entry.path(), draft_dir());
    if (relative.parent_path() == kFormatDir) continue;
    ++files;
    // A suite update with a new keyword must be sorted into one list, not silently skipped.
    EXPECT_EQ(known.count(relative.generic_string()), 1U) << relative << " is in no list";
  }
  EXPECT_EQ(files, known.size()) << "a listed file is missing from the suite";
}

class ImplementedKeyword : public testing::TestWithParam<std::string> {};

TEST_P(ImplementedKeyword, PassesTheSuite) {
  const std::string& file = GetParam();
  const Json groups = load(file);
  ASSERT_FALSE(groups.empty()) << file;
  Counts counts;
  for (const auto& group : groups) {
    const std::string description = group.at("description").get<std::string>();
    const RefusedGroup* listed = listed_refusal(file, description);
    const bool ran = run_group(file, group, counts);
    if (listed != nullptr) {
      EXPECT_FALSE(ran) << file << " / " << description << " is listed as refused ("
                        << listed->reason << ") but was accepted: remove it from the list";
    } else {
      EXPECT_TRUE(ran) << file << " / " << description
                       << ": schema refused but not listed in kRefusedGroups";
    }
  }
  report(file, counts);
  EXPECT_GT(counts.run, 0) << file;
}

INSTANTIATE_TEST_SUITE_P(SchemaValidatorSuite, ImplementedKeyword,
                         testing::ValuesIn(kImplemented), test_name);

class NotImplementedKeyword : public testing::TestWithParam<std::string> {};

// A group whose schema does not actually use the keyword (ref.json's property named "$ref")
// is accepted and must then pass like any other.
TEST_P(NotImplementedKeyword, IsRefusedRatherThanHalfEnforced) {
  const std::string& file = GetParam();
  const Json groups = load(file);
  ASSERT_FALSE(groups.empty()) << file;
  Counts counts;
  for (const auto& group : groups) run_group(file, group, counts);
  report(file, counts);
  EXPECT_GT(counts.refused, 0) << file;
}

INSTANTIATE_TEST_SUITE_P(SchemaValidatorSuite, NotImplementedKeyword,
                         testing::ValuesIn(kNotImplemented), test_name);

}  // namespace
}  // namespace vc::mcp
