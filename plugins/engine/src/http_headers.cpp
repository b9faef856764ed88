// http_headers.cpp — header fields with case-insensitive lookup.
#include <algorithm>
#include <cctype>

#include "vc_engine/http_types.h"

namespace vc::engine {
namespace {

std::string lower_case(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lowered;
}

}  // namespace

void HttpHeaders::add(std::string_view name, std::string_view value) {
  fields_.emplace_back(lower_case(name), std::string(value));
}

std::optional<std::string> HttpHeaders::find(std::string_view name) const {
  const std::string wanted = lower_case(name);
  for (const auto& [field_name, field_value] : fields_) {
    if (field_name == wanted) return field_value;
  }
  return std::nullopt;
}

}  // namespace vc::engine
