// negotiation.cpp — API version negotiation and engine detection.
#include "negotiation.h"

#include <charconv>

#include "http_exchange.h"
#include "json_response.h"
#include "request_writer.h"

namespace vc::engine::detail {
namespace {

std::optional<std::pair<int, int>> parse_api_version(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  int major = 0;
  int minor = 0;
  const auto [major_end, major_error] = std::from_chars(text.data(), text.data() + dot, major);
  const auto [minor_end, minor_error] =
      std::from_chars(text.data() + dot + 1, text.data() + text.size(), minor);
  if (major_error != std::errc() || major_end != text.data() + dot || minor_error != std::errc() ||
      minor_end != text.data() + text.size() || dot == 0 || dot + 1 == text.size()) {
    return std::nullopt;
  }
  return std::make_pair(major, minor);
}

std::string string_member(const nlohmann::json& object, const char* name) {
  const auto member = object.find(name);
  return member != object.end() && member->is_string() ? member->get<std::string>() : std::string();
}

}  // namespace

std::optional<int> compare_api_versions(std::string_view a, std::string_view b) {
  const auto left = parse_api_version(a);
  const auto right = parse_api_version(b);
  if (!left || !right) return std::nullopt;
  if (*left < *right) return -1;
  if (*right < *left) return 1;
  return 0;
}

Negotiation::Negotiation(std::shared_ptr<ClientState> client, RequestOptions deadlines,
                         std::function<void(Result<EngineInfo>)> on_done)
    : Operation(client->loop),
      client_(std::move(client)),
      deadlines_(deadlines),
      on_done_(std::move(on_done)) {}

void Negotiation::begin() {
  if (done_) return;
  auto self = std::static_pointer_cast<Negotiation>(shared_from_this());
  start_request("/_ping",
                [self](Result<HttpResponse> response) { self->on_ping(std::move(response)); });
}

void Negotiation::start_request(std::string target,
                                std::function<void(Result<HttpResponse>)> on_done) {
  HttpRequest request;
  request.target = std::move(target);
  Result<std::string> bytes =
      write_request(request, client_->address, client_->options.user_agent, ConnectionMode::kClose);
  if (!bytes) {
    deliver(bytes.error());
    return;
  }
  ExchangeCallbacks callbacks;
  callbacks.on_done = std::move(on_done);
  current_ =
      std::make_shared<HttpExchange>(loop(), client_->address, deadlines_, std::move(bytes).value(),
                                     /*head_request=*/false, std::move(callbacks));
  current_->begin();  // we are on the loop thread already
}

void Negotiation::on_ping(Result<HttpResponse> response) {
  current_.reset();
  if (done_) return;
  if (!response) {
    deliver(response.error());
    return;
  }
  const HttpResponse& ping = response.value();
  if (ping.status != 200) {
    deliver(http_status_error(ping));
    return;
  }
  const auto engine_api = ping.headers.find("api-version");
  if (!engine_api || !parse_api_version(*engine_api)) {
    deliver(make_error(
        EngineErrorKind::kProtocol,
        "the answer to /_ping has no usable Api-Version header; is this a Docker-compatible "
        "engine API socket?"));
    return;
  }
  if (*compare_api_versions(*engine_api, kMinimumApiVersion) < 0) {
    deliver(make_error(EngineErrorKind::kIncompatible,
                       "engine API version " + *engine_api + " is older than " +
                           std::string(kMinimumApiVersion) +
                           ", the oldest this server supports; upgrade the engine"));
    return;
  }
  info_.engine_api_version = *engine_api;
  info_.api_version = *compare_api_versions(*engine_api, kMaximumApiVersion) < 0
                          ? *engine_api
                          : std::string(kMaximumApiVersion);
  info_.server = ping.headers.find("server").value_or("");
  if (auto libpod = ping.headers.find("libpod-api-version")) {
    info_.is_podman = true;
    info_.libpod_api_version = *libpod;
  }
  if (info_.is_podman) {
    // Podman's /version takes over a second (it runs the OCI runtime and conmon to report
    // their versions), and its /_ping already names the version: "Libpod-Api-Version: 4.3.1",
    // "Server: Libpod/4.3.1 (linux)".
    info_.version = info_.libpod_api_version;
    const auto open = info_.server.find('(');
    const auto close = info_.server.find(')', open == std::string::npos ? 0 : open);
    if (open != std::string::npos && close != std::string::npos) {
      info_.os = info_.server.substr(open + 1, close - open - 1);
    }
    publish_and_deliver();
    return;
  }
  auto self = std::static_pointer_cast<Negotiation>(shared_from_this());
  start_request("/v" + info_.api_version + "/version",
                [self](Result<HttpResponse> version) { self->on_version(std::move(version)); });
}

void Negotiation::on_version(Result<HttpResponse> response) {
  current_.reset();
  if (done_) return;
  Result<JsonResponse> json = to_json_response(std::move(response));
  if (!json) {
    deliver(json.error());
    return;
  }
  const nlohmann::json& body = json.value().body;
  if (!body.is_object()) {
    deliver(make_error(EngineErrorKind::kProtocol, "the answer to /version is not a JSON object"));
    return;
  }
  info_.version = string_member(body, "Version");
  info_.min_api_version = string_member(body, "MinAPIVersion");
  info_.os = string_member(body, "Os");
  info_.arch = string_member(body, "Arch");
  publish_and_deliver();
}

void Negotiation::publish_and_deliver() {
  {
    std::lock_guard lock(client_->mutex);
    client_->info = info_;
    client_->api_version = info_.api_version;
  }
  deliver(info_);
}

void Negotiation::cancel() {
  if (done_) return;
  if (current_) {
    current_->cancel();  // its completion delivers kCancelled through on_ping/on_version
    return;
  }
  deliver(cancelled_error());
}

void Negotiation::complete_unstarted(EngineError error) {
  deliver(std::move(error));
}

void Negotiation::deliver(Result<EngineInfo> result) {
  if (done_) return;
  done_ = true;
  auto on_done = std::move(on_done_);
  on_done_ = nullptr;
  on_done(std::move(result));
}

}  // namespace vc::engine::detail
