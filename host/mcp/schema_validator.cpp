// schema_validator.cpp — see schema_validator.h.
//
// Messages follow the wording of Python's jsonschema package (which produced the original's
// "Input validation error: ..." texts), prefixed with the path of the offending value.
#include "mcp/schema_validator.h"

#include <cmath>
#include <limits>
#include <regex>
#include <vector>

namespace vc::mcp {
namespace {

constexpr size_t kMaxShownValueChars = 60;

bool is_integral(const Json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  const double number = value.get<double>();
  return std::isfinite(number) && std::trunc(number) == number;
}

bool has_type(const Json& value, const std::string& type) {
  if (type == "null") return value.is_null();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "integer") return is_integral(value);
  return true;  // an unknown type name constrains nothing
}

// The value as JSON, shortened: a long stdin string must not flood the message.
// Strings longer than this are refused by a "pattern" rather than matched.
constexpr size_t kMaxPatternSubjectBytes = 4096;

// At most the first `limit` bytes of UTF-8 `text`, never half a character: the message is
// sent as text, and a cut sequence would be invalid UTF-8 in it.
std::string utf8_prefix(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

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

class Validator {
 public:
  std::optional<std::string> check(const Json& schema, const Json& value, const std::string& path) {
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
      for (const auto& name : *type) {
        if (name.is_string()) allowed.push_back(name.get<std::string>());
      }
    }
    if (allowed.empty()) return std::nullopt;
    for (const auto& name : allowed) {
      if (has_type(value, name)) return std::nullopt;
    }
    return at(path, show(value) + " is not of type " + quoted_list(allowed));
  }

  static std::optional<std::string> check_enum_and_const(const Json& schema, const Json& value,
                                                         const std::string& path) {
    const auto allowed = schema.find("enum");
    if (allowed != schema.end() && allowed->is_array()) {
      bool found = false;
      for (const auto& candidate : *allowed) found = found || candidate == value;
      if (!found) return at(path, show(value) + " is not one of " + show(*allowed));
    }
    const auto constant = schema.find("const");
    if (constant != schema.end() && *constant != value) {
      return at(path, show(*constant) + " was expected");
    }
    return std::nullopt;
  }

  static std::optional<std::string> check_number(const Json& schema, const Json& value,
                                                 const std::string& path) {
    const double number = value.get<double>();
    auto bound = [&](const char* keyword) -> std::optional<double> {
      const auto it = schema.find(keyword);
      if (it == schema.end() || !it->is_number()) return std::nullopt;
      return it->get<double>();
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

  static std::optional<std::string> check_length(const Json& schema, const Json& value,
                                                 size_t length, const char* min_keyword,
                                                 const char* max_keyword,
                                                 const std::string& path) {
    const auto minimum = schema.find(min_keyword);
    if (minimum != schema.end() && minimum->is_number_integer() &&
        static_cast<int64_t>(length) < minimum->get<int64_t>()) {
      return at(path, show(value) + " is too short");
    }
    const auto maximum = schema.find(max_keyword);
    if (maximum != schema.end() && maximum->is_number_integer() &&
        static_cast<int64_t>(length) > maximum->get<int64_t>()) {
      return at(path, show(value) + " is too long");
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
    if (pattern == schema.end() || !pattern->is_string()) return std::nullopt;
    const std::string& text = value.get_ref<const std::string&>();
    // std::regex recurses per character: a huge string could exhaust the stack.
    if (text.size() > kMaxPatternSubjectBytes) {
      return at(path, show(value) + " is too long to match '" + pattern->get<std::string>() + "'");
    }
    try {
      const std::regex expression(pattern->get<std::string>(), std::regex::ECMAScript);
      if (std::regex_search(text, expression)) return std::nullopt;
    } catch (const std::regex_error&) {
      return std::nullopt;  // a pattern we cannot compile constrains nothing
    }
    return at(path, show(value) + " does not match '" + pattern->get<std::string>() + "'");
  }

  std::optional<std::string> check_array(const Json& schema, const Json& value,
                                         const std::string& path) {
    if (auto problem = check_length(schema, value, value.size(), "minItems", "maxItems", path)) {
      return problem;
    }
    const auto items = schema.find("items");
    if (items == schema.end() || !items->is_object()) return std::nullopt;
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
    const bool has_properties = properties != schema.end() && properties->is_object();
    if (has_properties) {
      for (const auto& [name, property_schema] : properties->items()) {
        const auto member = value.find(name);
        if (member == value.end()) continue;
        const std::string member_path = path.empty() ? name : path + "." + name;
        if (auto problem = check(property_schema, *member, member_path)) return problem;
      }
    }
    const auto required = schema.find("required");
    if (required != schema.end() && required->is_array()) {
      for (const auto& name : *required) {
        if (name.is_string() && !value.contains(name.get<std::string>())) {
          return at(path, "'" + name.get<std::string>() + "' is a required property");
        }
      }
    }
    return check_additional(schema, value, path, has_properties ? &*properties : nullptr);
  }

  std::optional<std::string> check_additional(const Json& schema, const Json& value,
                                              const std::string& path, const Json* properties) {
    const auto additional = schema.find("additionalProperties");
    if (additional == schema.end()) return std::nullopt;
    std::vector<std::string> extra;
    for (const auto& [name, member] : value.items()) {
      if (properties != nullptr && properties->contains(name)) continue;
      if (additional->is_object()) {
        const std::string member_path = path.empty() ? name : path + "." + name;
        if (auto problem = check(*additional, member, member_path)) return problem;
      } else if (*additional == false) {
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

std::optional<std::string> find_schema_violation(const Json& schema, const Json& instance) {
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
