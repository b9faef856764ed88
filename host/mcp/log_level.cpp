// log_level.cpp — see log_level.h.
#include "mcp/log_level.h"

#include <array>
#include <utility>

namespace vc::mcp {
namespace {

constexpr std::array<std::pair<LogLevel, const char*>, 8> kNames{{
    {LogLevel::debug, "debug"},
    {LogLevel::info, "info"},
    {LogLevel::notice, "notice"},
    {LogLevel::warning, "warning"},
    {LogLevel::error, "error"},
    {LogLevel::critical, "critical"},
    {LogLevel::alert, "alert"},
    {LogLevel::emergency, "emergency"},
}};

}  // namespace

const char* log_level_name(LogLevel level) {
  for (const auto& [value, name] : kNames) {
    if (value == level) return name;
  }
  return "info";
}

std::optional<LogLevel> parse_log_level(std::string_view name) {
  for (const auto& [value, level_name] : kNames) {
    if (name == level_name) return value;
  }
  return std::nullopt;
}

}  // namespace vc::mcp
