// schema_validator.cpp — see schema_validator.h.
//
// Messages follow the wording of Python's jsonschema package (which produced the original's
// "Input validation error: ..." texts), prefixed with the path of the offending value.
// Conformance is checked against the official JSON-Schema-Test-Suite
// (tests/unit/mcp_schema_validator_suite_test.cpp).
#include "mcp/schema_validator.h"

#include <array>
#include <cmath>
#include <limits>
#include <regex>
#include <string_view>
#include <vector>

#include "common/utf8_repair.h"

namespace vc::mcp {
namespace {

constexpr size_t kMaxShownValueChars = 60;

bool is_integral(const Json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  const double number = value.get<double>();
  return std::isfinite(number) && std::trunc(number) == number;
}

constexpr std::array<std::string_view, 7> kTypeNames = {"null",   "boolean", "object", "array",
                                                        "string", "number",  "integer"};

bool has_type(const Json& value, const std::string& type) {
  if (type == "null") return value.is_null();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "integer") return is_integral(value);
  return false;  // unreachable: check_schema_supported refuses unknown type names
}

// long double holds every int64, uint64 and double exactly on the platforms we build for, so
// large integers (2^64 - 1 against 2^64 - 16) compare exactly rather than as rounded doubles.
long double numeric(const Json& number) {
  if (number.is_number_unsigned()) return static_cast<long double>(number.get<uint64_t>());
  if (number.is_number_integer()) return static_cast<long double>(number.get<int64_t>());
  return static_cast<long double>(number.get<double>());
}

// JSON Schema's equality (enum, const): numbers by value (1 equals 1.0), objects regardless of
// member order. Json is ordered, so its own == would call {"a":1,"b":2} and {"b":2,"a":1} unequal.
bool json_equal(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return numeric(a) == numeric(b);
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!json_equal(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [name, member] : a.items()) {
      const auto other = b.find(name);
      if (other == b.end() || !json_equal(member, *other)) return false;
    }
    return true;
  }
  return a == b;
}

// The value as JSON, shortened: a long stdin string must not flood the message.
// Strings longer than this are refused by a "pattern" rather than matched.
constexpr size_t kMaxPatternSubjectBytes = 4096;

std::string show(const Json& value) {
  if (value.is_string() && value.get_ref<const std::string&>().size() > kMaxShownValueChars) {
    // Do not serialise megabytes of stdin only to cut them off.
    return show(Json(utf8_prefix(value.get_ref<const std::string&>(), kMaxShownValueChars)));
  }
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kMaxShownValueChars) text = utf8_prefix(text, kMaxShownValueChars) + "...";
  return text;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) {
    if (!text.empty()) text += ", ";
    text += "'" + name + "'";
  }
  return text;
}

std::regex compile_pattern(const std::string& pattern) {
  return std::regex(pattern, std::regex::ECMAScript);
}

// Walks a whole schema, not only the parts one instance reaches, so that an unsupported keyword
// in a rarely used property is refused on the first call rather than on the call that uses it.
class SchemaChecker {
 public:
  void check(const Json& schema, const std::string& pointer) {
    if (schema.is_boolean()) return;
    if (!schema.is_object()) malformed(pointer, "a schema must be an object or a boolean");
    for (const auto& [keyword, value] : schema.items()) {
      check_keyword(keyword, value, pointer);
    }
  }

 private:
  [[noreturn]] static void malformed(const std::string& pointer, const std::string& why) {
    throw UnsupportedSchemaError("schema cannot be enforced: " + why + " (at " + pointer + ")");
  }

  [[noreturn]] static void malformed(const std::string& keyword, const std::string& pointer,
                                     const std::string& why) {
    throw UnsupportedSchemaError("schema cannot be enforced: keyword '" + keyword + "' at " +
                                 pointer + " " + why);
  }

  // JSON Pointer (RFC 6901) escaping, so the location in a message can be followed.
  static std::string child(const std::string& pointer, const std::string& name) {
    std::string escaped;
    for (const char c : name) {
      if (c == '~') {
        escaped += "~0";
      } else if (c == '/') {
        escaped += "~1";
      } else {
        escaped += c;
      }
    }
    return pointer + "/" + escaped;
  }

  static bool is_annotation(const std::string& keyword) {
    static const std::array<std::string_view, 9> kAnnotations = {
        "title",  "description", "default",   "examples",  "$comment",
        "format", "readOnly",    "writeOnly", "deprecated"};
    for (const auto annotation : kAnnotations) {
      if (keyword == annotation) return true;
    }
    return false;
  }

  // Draft-04 and older give exclusiveMinimum and friends other meanings: only the dialects whose
  // semantics match ours for every keyword we implement are accepted.
  static bool is_known_dialect(const Json& uri) {
    if (!uri.is_string()) return false;
    std::string text = uri.get<std::string>();
    if (!text.empty() && text.back() == '#') text.pop_back();
    if (text.rfind("https://", 0) == 0) text.erase(4, 1);
    static const std::array<std::string_view, 4> kDialects = {
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft/2020-12/schema",
    };
    for (const auto dialect : kDialects) {
      if (text == dialect) return true;
    }
    return false;
  }

  static bool is_non_negative_integer(const Json& value) {
    return is_integral(value) && value.get<double>() >= 0;
  }

  void check_keyword(const std::string& keyword, const Json& value, const std::string& pointer) {
    if (is_annotation(keyword)) return;
    if (keyword == "$schema") {
      if (!is_known_dialect(value)) {
        malformed(keyword, pointer,
                  "names a dialect other than draft-06, draft-07, 2019-09 or 2020-12");
      }
    } else if (keyword == "type") {
      check_type(value, pointer);
    } else if (keyword == "enum") {
      if (!value.is_array()) malformed(keyword, pointer, "must be an array");
    } else if (keyword == "const") {
      // any value
    } else if (keyword == "minimum" || keyword == "maximum" || keyword == "exclusiveMinimum" ||
               keyword == "exclusiveMaximum") {
      if (!value.is_number()) malformed(keyword, pointer, "must be a number");
    } else if (keyword == "minLength" || keyword == "maxLength" || keyword == "minItems" ||
               keyword == "maxItems") {
      if (!is_non_negative_integer(value)) {
        malformed(keyword, pointer, "must be a non-negative integer");
      }
    } else if (keyword == "pattern") {
      check_pattern(value, pointer);
    } else if (keyword == "items") {
      if (value.is_array()) {
        malformed(keyword, pointer,
                  "is an array of schemas (tuple validation), which is not supported");
      }
      check(value, child(pointer, keyword));
    } else if (keyword == "properties") {
      if (!value.is_object()) malformed(keyword, pointer, "must be an object");
      for (const auto& [name, property] : value.items()) {
        check(property, child(child(pointer, keyword), name));
      }
    } else if (keyword == "required") {
      if (!value.is_array()) malformed(keyword, pointer, "must be an array of strings");
      for (const auto& name : value) {
        if (!name.is_string()) malformed(keyword, pointer, "must be an array of strings");
      }
    } else if (keyword == "additionalProperties") {
      check(value, child(pointer, keyword));
    } else {
      malformed(keyword, pointer, "is not supported");
    }
  }

  static void check_type(const Json& value, const std::string& pointer) {
    auto known = [](const Json& name) {
      if (!name.is_string()) return false;
      for (const auto type : kTypeNames) {
        if (name.get_ref<const std::string&>() == type) return true;
      }
      return false;
    };
    if (value.is_string()) {
      if (!known(value)) malformed("type", pointer, "names an unknown type " + show(value));
      return;
    }
    if (!value.is_array() || value.empty()) {
      malformed("type", pointer, "must be a type name or a non-empty array of them");
    }
    for (const auto& name : value) {
      if (!known(name)) malformed("type", pointer, "names an unknown type " + show(name));
    }
  }

  static void check_pattern(const Json& value, const std::string& pointer) {
    if (!value.is_string()) malformed("pattern", pointer, "must be a string");
    try {
      compile_pattern(value.get<std::string>());
    } catch (const std::regex_error& error) {
      malformed("pattern", pointer,
                "is not a regular expression this validator can compile (" + show(value) +
                    ": " + error.what() + ")");
    }
  }
};

class Validator {
 public:
  std::optional<std::string> check(const Json& schema, const Json& value, const std::string& path) {
    if (schema.is_boolean()) {
      if (schema.get<bool>()) return std::nullopt;
      return at(path, "False schema does not allow " + show(value));
    }
    if (!schema.is_object()) return std::nullopt;
    if (auto problem = check_type(schema, value, path)) return problem;
    if (auto problem = check_enum_and_const(schema, value, path)) return problem;
    if (value.is_number()) return check_number(schema, value, path);
    if (value.is_string()) return check_string(schema, value, path);
    if (value.is_array()) return check_array(schema, value, path);
    if (value.is_object()) return check_object(schema, value, path);
    return std::nullopt;
  }

 private:
  static std::string at(const std::string& path, const std::string& sentence) {
    return path.empty() ? sentence : path + ": " + sentence;
  }

  static std::optional<std::string> check_type(const Json& schema, const Json& value,
                                               const std::string& path) {
    const auto type = schema.find("type");
    if (type == schema.end()) return std::nullopt;
    std::vector<std::string> allowed;
    if (type->is_string()) allowed.push_back(type->get<std::string>());
    if (type->is_array()) {
      for (const auto& name : *type) allowed.push_back(name.get<std::string>());
    }
    for (const auto& name : allowed) {
      if (has_type(value, name)) return std::nullopt;
    }
    return at(path, show(value) + " is not of type " + quoted_list(allowed));
  }

  static std::optional<std::string> check_enum_and_const(const Json& schema, const Json& value,
                                                         const std::string& path) {
    const auto allowed = schema.find("enum");
    if (allowed != schema.end()) {
      bool found = false;
      for (const auto& candidate : *allowed) found = found || json_equal(candidate, value);
      if (!found) return at(path, show(value) + " is not one of " + show(*allowed));
    }
    const auto constant = schema.find("const");
    if (constant != schema.end() && !json_equal(*constant, value)) {
      return at(path, show(*constant) + " was expected");
    }
    return std::nullopt;
  }

  static std::optional<std::string> check_number(const Json& schema, const Json& value,
                                                 const std::string& path) {
    const long double number = numeric(value);
    auto bound = [&](const char* keyword) -> std::optional<long double> {
      const auto it = schema.find(keyword);
      if (it == schema.end()) return std::nullopt;
      return numeric(*it);
    };
    if (auto minimum = bound("minimum"); minimum && number < *minimum) {
      return at(path, show(value) + " is less than the minimum of " + show(schema.at("minimum")));
    }
    if (auto maximum = bound("maximum"); maximum && number > *maximum) {
      return at(path, show(value) + " is greater than the maximum of " + show(schema.at("maximum")));
    }
    if (auto minimum = bound("exclusiveMinimum"); minimum && number <= *minimum) {
      return at(path, show(value) + " is less than or equal to the minimum of " +
                          show(schema.at("exclusiveMinimum")));
    }
    if (auto maximum = bound("exclusiveMaximum"); maximum && number >= *maximum) {
      return at(path, show(value) + " is greater than or equal to the maximum of " +
                          show(schema.at("exclusiveMaximum")));
    }
    return std::nullopt;
  }

  static size_t utf8_length(const std::string& text) {
    size_t count = 0;
    for (const char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return count;
  }

  // The limits are non-negative integers (check_schema_supported), possibly written as 2.0.
  static std::optional<std::string> check_length(const Json& schema, const Json& value,
                                                 size_t length, const char* min_keyword,
                                                 const char* max_keyword,
                                                 const std::string& path) {
    const auto minimum = schema.find(min_keyword);
    if (minimum != schema.end() && static_cast<long double>(length) < numeric(*minimum)) {
      return at(path, show(value) + " is too short");
    }
    const auto maximum = schema.find(max_keyword);
    if (maximum != schema.end() && static_cast<long double>(length) > numeric(*maximum)) {
      // The bound, so that the caller knows how far to cut (the value is shown cut short).
      return at(path, show(value) + " is too long (" + std::to_string(length) + ", at most " +
                          maximum->dump() + ")");
    }
    return std::nullopt;
  }

  static std::optional<std::string> check_string(const Json& schema, const Json& value,
                                                 const std::string& path) {
    const std::string& text = value.get_ref<const std::string&>();
    if (auto problem = check_length(schema, value, utf8_length(text), "minLength", "maxLength",
                                    path)) {
      return problem;
    }
    return check_pattern(schema, value, path);
  }

  // JSON Schema's pattern: an ECMA-262 regular expression that must match somewhere in the
  // string (it is not implicitly anchored).
  static std::optional<std::string> check_pattern(const Json& schema, const Json& value,
                                                  const std::string& path) {
    const auto pattern = schema.find("pattern");
    if (pattern == schema.end()) return std::nullopt;
    const std::string& text = value.get_ref<const std::string&>();
    // std::regex recurses per character: a huge string could exhaust the stack.
    if (text.size() > kMaxPatternSubjectBytes) {
      return at(path, show(value) + " is too long to match '" + pattern->get<std::string>() + "'");
    }
    try {
      if (std::regex_search(text, compile_pattern(pattern->get<std::string>()))) {
        return std::nullopt;
      }
    } catch (const std::regex_error&) {
      // The engine gave up (error_complexity, error_stack): an unmatched string, not a pass.
    }
    return at(path, show(value) + " does not match '" + pattern->get<std::string>() + "'");
  }

  std::optional<std::string> check_array(const Json& schema, const Json& value,
                                         const std::string& path) {
    if (auto problem = check_length(schema, value, value.size(), "minItems", "maxItems", path)) {
      return problem;
    }
    const auto items = schema.find("items");
    if (items == schema.end()) return std::nullopt;
    for (size_t i = 0; i < value.size(); ++i) {
      const std::string item_path = (path.empty() ? "arguments" : path) + "[" +
                                    std::to_string(i) + "]";
      if (auto problem = check(*items, value[i], item_path)) return problem;
    }
    return std::nullopt;
  }

  std::optional<std::string> check_object(const Json& schema, const Json& value,
                                          const std::string& path) {
    const auto properties = schema.find("properties");
    const bool has_properties = properties != schema.end();
    if (has_properties) {
      for (const auto& [name, property_schema] : properties->items()) {
        const auto member = value.find(name);
        if (member == value.end()) continue;
        const std::string member_path = path.empty() ? name : path + "." + name;
        if (auto problem = check(property_schema, *member, member_path)) return problem;
      }
    }
    const auto required = schema.find("required");
    if (required != schema.end()) {
      for (const auto& name : *required) {
        if (!value.contains(name.get<std::string>())) {
          return at(path, "'" + name.get<std::string>() + "' is a required property");
        }
      }
    }
    return check_additional(schema, value, path, has_properties ? &*properties : nullptr);
  }

  std::optional<std::string> check_additional(const Json& schema, const Json& value,
                                              const std::string& path, const Json* properties) {
    const auto additional = schema.find("additionalProperties");
    if (additional == schema.end() || *additional == true) return std::nullopt;
    std::vector<std::string> extra;
    for (const auto& [name, member] : value.items()) {
      if (properties != nullptr && properties->contains(name)) continue;
      if (additional->is_object()) {
        const std::string member_path = path.empty() ? name : path + "." + name;
        if (auto problem = check(*additional, member, member_path)) return problem;
      } else {
        extra.push_back(name);
      }
    }
    if (extra.empty()) return std::nullopt;
    return at(path, "Additional properties are not allowed (" + quoted_list(extra) +
                        (extra.size() == 1 ? " was" : " were") + " unexpected)");
  }
};

bool wants_integer(const Json& schema) {
  const auto type = schema.find("type");
  if (type == schema.end()) return false;
  if (type->is_string()) return *type == "integer";
  if (!type->is_array()) return false;
  bool integer = false;
  for (const auto& name : *type) {
    if (name == "number") return false;  // 2.0 is a fine number as it is
    integer = integer || name == "integer";
  }
  return integer;
}

}  // namespace

void check_schema_supported(const Json& schema) { SchemaChecker().check(schema, "#"); }

std::optional<std::string> find_schema_violation(const Json& schema, const Json& instance) {
  check_schema_supported(schema);
  return Validator().check(schema, instance, "");
}

void normalize_integers(const Json& schema, Json& instance) {
  if (!schema.is_object()) return;
  if (instance.is_number_float() && wants_integer(schema) && is_integral(instance)) {
    const double number = instance.get<double>();
    if (number >= static_cast<double>(std::numeric_limits<int64_t>::min()) &&
        number < static_cast<double>(std::numeric_limits<int64_t>::max())) {
      instance = static_cast<int64_t>(number);
    }
    return;
  }
  if (instance.is_array()) {
    const auto items = schema.find("items");
    if (items == schema.end()) return;
    for (auto& item : instance) normalize_integers(*items, item);
    return;
  }
  if (!instance.is_object()) return;
  const auto properties = schema.find("properties");
  const auto additional = schema.find("additionalProperties");
  for (auto& [name, member] : instance.items()) {
    if (properties != schema.end() && properties->is_object() && properties->contains(name)) {
      normalize_integers((*properties)[name], member);
    } else if (additional != schema.end() && additional->is_object()) {
      normalize_integers(*additional, member);
    }
  }
}

}  // namespace vc::mcp
