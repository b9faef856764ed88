// json_response.cpp — JSON bodies and the engines' error messages.
#include "json_response.h"

namespace vc::engine::detail {
namespace {

constexpr std::size_t kMaxMessageLength = 512;

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  std::string result(text.substr(first, last - first + 1));
  if (result.size() > kMaxMessageLength) {
    result.resize(kMaxMessageLength);
    result += "...";
  }
  return result;
}

bool labelled_json(const HttpResponse& response) {
  const auto type = response.headers.find("content-type");
  return type && type->find("json") != std::string::npos;
}

}  // namespace

std::string engine_message_of(const HttpResponse& response) {
  const nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  if (body.is_object()) {
    const auto message = body.find("message");
    if (message != body.end() && message->is_string() && !message->get<std::string>().empty()) {
      return trimmed(message->get<std::string>());
    }
  }
  std::string text = trimmed(response.body);
  if (!text.empty()) return text;
  return response.reason.empty() ? "no message" : response.reason;
}

EngineError http_status_error(const HttpResponse& response) {
  EngineError error;
  error.kind = EngineErrorKind::kHttpStatus;
  error.http_status = response.status;
  error.engine_message = engine_message_of(response);
  error.message =
      "engine answered " + std::to_string(response.status) + ": " + error.engine_message;
  return error;
}

Result<JsonResponse> to_json_response(Result<HttpResponse> response) {
  if (!response) return response.error();
  HttpResponse& http = response.value();
  if (http.status >= 400) return http_status_error(http);
  const bool labelled = labelled_json(http);
  JsonResponse json;
  json.status = http.status;
  json.headers = std::move(http.headers);
  if (trimmed(http.body).empty()) return json;  // 204, 304, or an empty 200: null
  nlohmann::json parsed = nlohmann::json::parse(http.body, nullptr, false);
  if (!parsed.is_discarded()) {
    json.body = std::move(parsed);
    return json;
  }
  if (labelled) {
    return make_error(EngineErrorKind::kProtocol,
                      "the engine answered " + std::to_string(http.status) +
                          " with a body that is not valid JSON: " + trimmed(http.body),
                      http.status);
  }
  json.body = http.body;  // plain text, e.g. Podman's "OK" to network connect
  return json;
}

}  // namespace vc::engine::detail
