// api_client.h — REST calls to the Kubernetes API: a request in, a status and a JSON body (or an
// ApiError sentence) out, over kept-alive TLS connections.
//
//   auto client = ApiClient::create(loop, endpoint);          // fails on a bad server address
//   client.value()->get_object("/api/v1/namespaces/ns/pods/p",
//       [](ApiExpected<ApiResponse> answer) { ... });          // runs on the loop thread
//
// A call is one request and its answer within a deadline (ApiClientOptions::request_timeout,
// or the request's own), retries included. It is retried once on a fresh connection when a
// reused keep-alive connection turns out closed before any byte of the answer came, and once
// with fresh credentials after a 401 (the credential source is invalidated once). An answer
// outside 2xx is an ApiError made from the server's Status object (api_status.h); a body that
// is larger than ApiClientOptions::max_response_bytes, or is not JSON although it says so, is a
// protocol error.
//
// Thread rule: create(), request() and the shortcuts (get_object...) on any thread; every
// callback runs on the loop thread, exactly once, and must not throw. Destroy the client on a thread other than the
// loop's (it waits for a credential refresh in progress); its calls still in flight then end
// with kind cancelled. The ApiLoop must outlive the client and be stopped after it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api_endpoint.h"
#include "api_error.h"
#include "api_loop.h"
#include "api_session.h"
#include "api_url.h"

namespace vc::kubernetes {

enum class HttpMethod { get, post, put, patch, delete_ };

// What a request's body is, hence its Content-Type.
enum class BodyType {
  json,                   // application/json (create, replace, DeleteOptions)
  merge_patch,            // application/merge-patch+json (RFC 7386)
  strategic_merge_patch,  // application/strategic-merge-patch+json (built-in kinds only)
  json_patch,             // application/json-patch+json (RFC 6902)
};

const char* http_method_name(HttpMethod method);     // "GET"
const char* content_type_name(BodyType body_type);  // "application/merge-patch+json"

// The request structs give every member an initializer (`{}` too) so that designated
// initializers may leave any of them out without GCC's -Wmissing-field-initializers.
struct ApiRequest {
  HttpMethod method = HttpMethod::get;
  // The API path as plain text, "/api/v1/namespaces/ns/pods"; the server URL's base path is
  // put in front and the whole is percent-encoded (api_url.h).
  std::string path{};
  QueryParams query{};
  std::optional<nlohmann::json> body{};
  BodyType body_type = BodyType::json;
  // This call's deadline instead of ApiClientOptions::request_timeout.
  std::optional<std::chrono::milliseconds> timeout{};
};

struct ApiResponse {
  int status = 0;       // 2xx
  // The body when the answer is JSON (Content-Type says so); null when it is empty or not JSON.
  nlohmann::json body;
  // The body when it is not JSON (a pod's log is text/plain); empty otherwise.
  std::string text;
};

// The query of a list: selectors as kubectl takes them ("app=web,tier!=db"), paging.
struct ListOptions {
  std::string label_selector{};
  std::string field_selector{};
  std::optional<int> limit{};
  std::string continue_token{};
};
QueryParams list_query(const ListOptions& options);

// How a delete proceeds: propagationPolicy "Background", "Foreground" or "Orphan" (empty: the
// kind's default), and the grace period (empty: the object's own). Sent as a DeleteOptions body.
struct DeleteOptions {
  std::string propagation_policy{};
  std::optional<int> grace_period_seconds{};
};
// The DeleteOptions object for `options`; null when both are unset.
nlohmann::json delete_options_body(const DeleteOptions& options);

// cancel() ends the call with kind cancelled: its connection is closed, whatever step it is at.
using ApiCallHandle = ApiOperationHandle;

class ApiClient {
 public:
  using ResponseCallback = std::function<void(ApiExpected<ApiResponse>)>;

  // Fails (kind unreachable) when endpoint.server is not an https URL parse_server_url takes,
  // and (kind credentials) when endpoint.credentials is null. Nothing is connected yet.
  static ApiExpected<std::unique_ptr<ApiClient>> create(ApiLoop& loop, ApiEndpoint endpoint,
                                                        ApiClientOptions options = {});
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // [any-thread] Sends `request`; `done` runs once on the loop thread with the answer.
  ApiCallHandle request(ApiRequest request, ResponseCallback done);

  // [any-thread] The usual calls, each a request() with what the API wants.
  ApiCallHandle get_object(std::string path, ResponseCallback done);
  ApiCallHandle list_objects(std::string path, const ListOptions& options, ResponseCallback done);
  ApiCallHandle create_object(std::string path, nlohmann::json object, ResponseCallback done);
  ApiCallHandle patch_object(std::string path, nlohmann::json patch, BodyType patch_type,
                             ResponseCallback done);
  ApiCallHandle delete_object(std::string path, const DeleteOptions& options,
                              ResponseCallback done);

  // [any-thread] TLS connections opened so far (a reused keep-alive connection is not counted
  // again): what shows that connections are reused.
  std::size_t connections_opened() const { return session_->connections_opened(); }

  // What watches and other streams to the same server build on (api_watch.h).
  const std::shared_ptr<ApiSession>& session() const { return session_; }

 private:
  explicit ApiClient(std::shared_ptr<ApiSession> session) : session_(std::move(session)) {}

  std::shared_ptr<ApiSession> session_;
};

}  // namespace vc::kubernetes
