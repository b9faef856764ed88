// http_headers.cpp — header fields with case-insensitive lookup.

#include "vc_engine/http_types.h"

#include "ascii_case.h"

namespace vc::engine {

void HttpHeaders::add(std::string_view name, std::string_view value) {
  fields_.emplace_back(ascii_lower(name), std::string(value));
}

std::optional<std::string> HttpHeaders::find(std::string_view name) const {
  const std::string wanted = ascii_lower(name);
  for (const auto& [field_name, field_value] : fields_) {
    if (field_name == wanted) return field_value;
  }
  return std::nullopt;
}

}  // namespace vc::engine
