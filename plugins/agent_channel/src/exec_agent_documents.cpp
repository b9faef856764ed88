// exec_agent_documents.cpp — reading the agent's hello, exit and error documents.
#include <vc_agent_channel/exec_agent_documents.h>

#include <nlohmann/json.hpp>

namespace vc::agent_channel {
namespace {

std::optional<nlohmann::json> object_of(std::string_view payload) {
  auto document = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return std::nullopt;
  return document;
}

std::string text_field(const nlohmann::json& document, const char* key) {
  auto it = document.find(key);
  return it != document.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> integer_field(const nlohmann::json& document, const char* key) {
  auto it = document.find(key);
  if (it == document.end() || !it->is_number_integer()) return std::nullopt;
  // An unsigned beyond int64 is not a number the agent sends.
  if (it->is_number_unsigned() &&
      it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    return std::nullopt;
  }
  return it->get<std::int64_t>();
}

}  // namespace

std::optional<AgentHello> parse_agent_hello(std::string_view payload) {
  auto document = object_of(payload);
  if (!document) return std::nullopt;
  return AgentHello{text_field(*document, "version"),
                    integer_field(*document, "protocol").value_or(-1)};
}

std::optional<AgentExit> parse_agent_exit(std::string_view payload) {
  auto document = object_of(payload);
  if (!document) return std::nullopt;
  AgentExit exit;
  exit.outcome = text_field(*document, "outcome");
  exit.exit_code = integer_field(*document, "exit_code").value_or(-1);
  exit.duration_ms = integer_field(*document, "duration_ms");
  exit.error_code = text_field(*document, "error_code");
  exit.error = text_field(*document, "error");
  return exit;
}

std::string agent_error_message(std::string_view payload) {
  auto document = object_of(payload);
  std::string message = document ? text_field(*document, "message") : std::string();
  return message.empty() ? std::string(payload) : message;
}

}  // namespace vc::agent_channel
