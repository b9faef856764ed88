// env_flag.cpp — see env_flag.h.
#include "cli/env_flag.h"

#include <cstdlib>

#include "common/ascii_text.h"

namespace vc::cli {
namespace {

std::string normalise(std::string_view value) { return ascii_lower(trim_ascii_whitespace(value)); }

}  // namespace

Expected<bool> parse_flag_value(std::string_view name, std::string_view value) {
  const std::string word = normalise(value);
  if (word == "1" || word == "true" || word == "yes" || word == "on") return true;
  if (word == "0" || word == "false" || word == "no" || word == "off") return false;
  return Failure{-1, std::string(name) +
                         " must be one of true/false, 1/0, yes/no, or on/off; got '" +
                         std::string(value) + "'"};
}

Expected<bool> read_env_flag(const char* name, bool fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr) return fallback;
  return parse_flag_value(name, value);
}

}  // namespace vc::cli
