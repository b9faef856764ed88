// api_status.cpp — Status objects and HTTP error answers as ApiError sentences. Any thread.
#include "api_status.h"

#include <vector>

namespace vc::kubernetes {
namespace {

// A server's text fit for a one-line sentence: control characters become spaces, cut short.
std::string quote_server_text(std::string_view text, std::size_t limit = 300) {
  std::string cleaned(text);
  for (char& character : cleaned) {
    if (static_cast<unsigned char>(character) < 0x20 || character == 0x7F) character = ' ';
  }
  while (!cleaned.empty() && (cleaned.back() == ' ' || cleaned.back() == '.')) cleaned.pop_back();
  return bounded_quote(cleaned, limit);
}

std::string string_field(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return "";
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::vector<std::string_view> path_segments(std::string_view path) {
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const std::string_view segment = path.substr(0, slash);
    if (!segment.empty()) segments.push_back(segment);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

const char* verb_for(std::string_view method, bool has_name, bool watch) {
  if (watch) return "watch";
  if (method == "GET") return has_name ? "get" : "list";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return has_name ? "delete" : "deletecollection";
  return "use";
}

std::string advice_for(const ApiCallSummary& call, int http_status) {
  switch (http_status) {
    case 401: return " Are the kubeconfig's credentials current?";
    case 403:
      return " The account lacks RBAC permission to " + rbac_action(call) +
             "; docs/kubernetes-backend.md lists what the plugin needs.";
    default:
      return http_status >= 500 ? " The cluster reported a failure of its own; it may pass." : "";
  }
}

ApiError refused(const ApiCallSummary& call, int http_status, std::string reason,
                 const std::string& server_words, const char* verb_phrase) {
  ApiError error;
  error.kind = api_error_kind_for_status(http_status);
  error.http_status = http_status;
  error.reason = bounded_quote(reason, 80);
  const std::string label =
      error.reason.empty() ? "HTTP " + std::to_string(http_status) : error.reason;
  error.message = "The Kubernetes API at " + std::string(call.server) + " " + verb_phrase + " " +
                  std::string(call.method) + " " + bounded_quote(std::string(call.path), 200) +
                  ": " + server_words + " (" + label + ")." + advice_for(call, http_status);
  return error;
}

}  // namespace

std::string rbac_action(const ApiCallSummary& call) {
  auto segments = path_segments(call.path);
  std::size_t group_version_length = 0;
  if (!segments.empty() && segments[0] == "api") group_version_length = 2;
  if (!segments.empty() && segments[0] == "apis") group_version_length = 3;
  if (group_version_length == 0 || segments.size() <= group_version_length) {
    return std::string(call.method) + " " + bounded_quote(std::string(call.path), 200);
  }
  segments.erase(segments.begin(), segments.begin() + static_cast<long>(group_version_length));
  std::string namespace_name;
  // namespaces/<ns>/<resource>...; but namespaces/<name> and namespaces/<name>/status are the
  // namespace object itself.
  if (segments.size() >= 3 && segments[0] == "namespaces" && segments[2] != "status" &&
      segments[2] != "finalize") {
    namespace_name = segments[1];
    segments.erase(segments.begin(), segments.begin() + 2);
  }
  std::string resource(segments[0]);
  if (segments.size() >= 3) resource += "/" + std::string(segments[2]);
  std::string action = std::string(verb_for(call.method, segments.size() >= 2, call.watch)) +
                       " " + bounded_quote(resource, 100);
  if (!namespace_name.empty()) {
    action += " in the namespace " + bounded_quote(namespace_name, 100);
  }
  return action;
}

ApiError api_error_from_answer(const ApiCallSummary& call, int http_status,
                               std::string_view body) {
  const auto status = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string words = quote_server_text(string_field(status, "message"));
  if (words.empty()) {
    words = body.empty() ? "HTTP " + std::to_string(http_status) + " without an explanation"
                         : "HTTP " + std::to_string(http_status) + " with the answer \"" +
                               quote_server_text(body, 200) + "\"";
  }
  return refused(call, http_status, string_field(status, "reason"), words,
                 "refused");
}

ApiError api_error_from_watch_status(const ApiCallSummary& call, const nlohmann::json& status) {
  int code = 500;
  if (status.is_object() && status.contains("code") && status["code"].is_number_integer()) {
    code = status["code"].get<int>();
  }
  std::string words = quote_server_text(string_field(status, "message"));
  if (words.empty()) words = "the watch reported an error without an explanation";
  ApiError error =
      refused(call, code, string_field(status, "reason"), words, "ended the watch of");
  if (error.kind == ApiErrorKind::gone) {
    error.message += " The watch's resourceVersion is too old: list again and watch from the "
                     "list's resourceVersion.";
  }
  return error;
}

}  // namespace vc::kubernetes
