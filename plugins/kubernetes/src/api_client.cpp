// api_client.cpp — one REST call as a small state machine on the loop: credentials, a pooled or
// new connection, write the request, read the answer with Beast's parser, retry once where the
// header says, and end exactly once. Thread rule: see api_client.h.
#include "api_client.h"

#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "api_status.h"

namespace vc::kubernetes {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

constexpr std::uint32_t kMaxAnswerHeaderBytes = 64 * 1024;

http::verb beast_verb(HttpMethod method) {
  switch (method) {
    case HttpMethod::get: return http::verb::get;
    case HttpMethod::post: return http::verb::post;
    case HttpMethod::put: return http::verb::put;
    case HttpMethod::patch: return http::verb::patch;
    case HttpMethod::delete_: return http::verb::delete_;
  }
  return http::verb::get;
}

// The errors of a connection the server closed: on a reused keep-alive connection, before any
// byte of an answer, they mean the server had dropped it while it was idle.
bool closed_by_server(const error_code& error) {
  return error == http::error::end_of_stream || error == asio::error::eof ||
         error == asio::ssl::error::stream_truncated || error == asio::error::connection_reset ||
         error == asio::error::connection_aborted || error == asio::error::broken_pipe;
}

class RestCall final : public ApiOperation, public std::enable_shared_from_this<RestCall> {
 public:
  RestCall(std::shared_ptr<ApiSession> session, ApiRequest request,
           ApiClient::ResponseCallback done)
      : session_(std::move(session)),
        method_(http_method_name(request.method)),
        path_(std::move(request.path)),
        timeout_(request.timeout.value_or(session_->options().request_timeout)),
        deadline_(std::chrono::steady_clock::now() + timeout_),
        done_(std::move(done)) {
    http_request_.method(beast_verb(request.method));
    http_request_.target(make_request_target(session_->url().base_path, path_, request.query));
    http_request_.version(11);
    http_request_.set(http::field::host, session_->host_header());
    http_request_.set(http::field::user_agent, "mcp-virtual-computer-kubernetes/0.1");
    http_request_.set(http::field::accept, "application/json");
    if (request.body) {
      http_request_.set(http::field::content_type, content_type_name(request.body_type));
      // Invalid UTF-8 in a string is replaced rather than thrown about: the caller's thread has
      // no use for an exception from deep inside a request.
      http_request_.body() =
          request.body->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    http_request_.prepare_payload();
  }

  // [loop-thread] The call's first step, posted by request().
  void begin() {
    if (ended_) return;  // cancelled before it began
    session_->track(shared_from_this());
    if (ended_) return;  // the session is shut down
    timer_.emplace(session_->loop().context());
    timer_->expires_at(deadline_);
    timer_->async_wait([self = shared_from_this()](const error_code& error) {
      if (!error) self->expire();
    });
    use_credentials(0);
  }

  void abort() override {
    if (ended_) return;
    const ApiError cancelled{ApiErrorKind::cancelled, 0, "",
                             "The call " + method_ + " " + bounded_quote(path_, 200) +
                                 " to the Kubernetes API at " + session_->url().text +
                                 " was cancelled."};
    stop_io();
    session_->loop().post([done = std::move(done_), cancelled] { done(cancelled); });
  }

 private:
  ApiCallSummary summary() const { return {method_, path_, session_->url().text, false}; }

  void use_credentials(std::uint64_t refused_generation) {
    session_->credentials().acquire(
        refused_generation,
        [self = shared_from_this()](ApiExpected<CredentialCache::Snapshot> snapshot) {
          if (self->ended_) return;
          if (!snapshot) return self->finish(snapshot.error());
          self->credentials_ = snapshot.value();
          self->present_credentials();
          self->connect(/*fresh=*/false);
        });
  }

  void present_credentials() {
    const std::string& token = credentials_->credentials.bearer_token;
    if (token.empty()) {
      http_request_.erase(http::field::authorization);
    } else {
      http_request_.set(http::field::authorization, "Bearer " + token);
    }
  }

  void connect(bool fresh) {
    if (!fresh) {
      connection_ = session_->take_idle_connection(credentials_->tls.get());
      if (connection_) return send();
    }
    std::weak_ptr<RestCall> weak = shared_from_this();
    connection_ = session_->open_connection(
        credentials_, deadline_,
        [weak] {
          auto self = weak.lock();
          return !self || self->ended_;
        },
        [self = shared_from_this()](ApiExpected<void> connected) {
          if (self->ended_) return;
          if (!connected) return self->finish(connected.error());
          self->send();
        });
  }

  void send() {
    parser_.emplace();
    parser_->body_limit(session_->options().max_response_bytes);
    parser_->header_limit(kMaxAnswerHeaderBytes);
    http::async_write(*connection_->stream, http_request_,
                      [self = shared_from_this()](const error_code& error, std::size_t) {
                        if (self->ended_) return;
                        if (error) return self->on_broken(error);
                        self->receive();
                      });
  }

  // The header first, then the body: Beast 1.74 loses the body_limit error of a Content-Length
  // over the limit when it parses header and body in one eager pass (as http::async_read alone
  // does), and then reads the whole body; parsed apart, the header's read reports it.
  void receive() {
    http::async_read_header(*connection_->stream, connection_->buffer, *parser_,
                            [self = shared_from_this()](const error_code& error, std::size_t) {
                              if (self->ended_) return;
                              if (error) return self->on_broken(error);
                              self->receive_body();
                            });
  }

  void receive_body() {
    http::async_read(*connection_->stream, connection_->buffer, *parser_,
                     [self = shared_from_this()](const error_code& error, std::size_t) {
                       if (self->ended_) return;
                       if (error) return self->on_broken(error);
                       self->on_answer();
                     });
  }

  void on_broken(const error_code& error) {
    const bool nothing_answered = !parser_->got_some() && connection_->buffer.size() == 0;
    if (connection_->reused && nothing_answered && closed_by_server(error) &&
        !retried_stale_connection_) {
      retried_stale_connection_ = true;
      connection_.reset();  // nothing is pending on it: its last operation just completed
      return connect(/*fresh=*/true);
    }
    finish(error_for(error));
  }

  ApiError error_for(const error_code& error) const {
    const std::string call = method_ + " " + bounded_quote(path_, 200);
    if (error == http::error::body_limit) {
      return protocol_error("answered " + call + " with more than " +
                            describe_size(session_->options().max_response_bytes) +
                            ", more than the plugin reads");
    }
    if (error == http::error::header_limit) {
      return protocol_error("answered " + call + " with a header larger than " +
                            describe_size(kMaxAnswerHeaderBytes));
    }
    if (is_http_syntax_error(error)) {
      return protocol_error("answered " + call + " with something that is not HTTP (" +
                            error.message() + ")");
    }
    return transport_failure(session_->url(), ApiErrorKind::unreachable,
                             "the connection broke during " + call + " (" + error.message() + ")");
  }

  ApiError protocol_error(const std::string& what) const {
    return ApiError{ApiErrorKind::protocol, 0, "",
                    "The Kubernetes API at " + session_->url().text + " " + what + "."};
  }

  void on_answer() {
    auto& answer = parser_->get();
    const int status = answer.result_int();
    const std::string content_type(answer[http::field::content_type]);
    std::string body = std::move(answer.body());
    if (answer.keep_alive() && !parser_->need_eof()) {
      session_->keep_idle_connection(std::move(connection_));
    } else {
      connection_->close();
      connection_.reset();
    }
    if (status == 401 && !retried_refused_credentials_) {
      retried_refused_credentials_ = true;
      return use_credentials(credentials_->generation);
    }
    if (status < 200 || status >= 300) {
      return finish(api_error_from_answer(summary(), status, body));
    }
    finish(make_response(status, content_type, std::move(body)));
  }

  ApiExpected<ApiResponse> make_response(int status, const std::string& content_type,
                                         std::string body) const {
    ApiResponse response;
    response.status = status;
    if (body.empty()) return response;
    if (content_type.find("json") == std::string::npos) {
      response.text = std::move(body);
      return response;
    }
    response.body = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (response.body.is_discarded()) {
      return protocol_error("answered " + method_ + " " + bounded_quote(path_, 200) +
                            " with a body that says it is JSON but does not parse");
    }
    return response;
  }

  void expire() {
    if (ended_) return;
    finish(ApiError{ApiErrorKind::timeout, 0, "",
                    "The Kubernetes API at " + session_->url().text + " did not answer " +
                        method_ + " " + bounded_quote(path_, 200) + " within " +
                        describe_duration(timeout_) +
                        ". Is the cluster overloaded or the network slow? --api-timeout sets "
                        "the limit."});
  }

  // Ends I/O: the timer and the connection (not given back: its state is unknown). The objects
  // stay until this call is destroyed, after their handlers have run.
  void stop_io() {
    ended_ = true;
    if (timer_) timer_->cancel();
    if (connection_) connection_->close();
  }

  void finish(ApiExpected<ApiResponse> result) {
    if (ended_) return;
    stop_io();
    auto done = std::move(done_);
    done(std::move(result));
  }

  std::shared_ptr<ApiSession> session_;
  std::string method_;
  std::string path_;
  std::chrono::milliseconds timeout_;
  std::chrono::steady_clock::time_point deadline_;
  ApiClient::ResponseCallback done_;
  http::request<http::string_body> http_request_;

  // Loop thread only:
  bool ended_ = false;
  bool retried_stale_connection_ = false;
  bool retried_refused_credentials_ = false;
  std::optional<asio::steady_timer> timer_;
  CredentialCache::Snapshot credentials_;
  std::shared_ptr<HttpConnection> connection_;
  std::optional<http::response_parser<http::string_body>> parser_;
};

}  // namespace

const char* http_method_name(HttpMethod method) {
  switch (method) {
    case HttpMethod::get: return "GET";
    case HttpMethod::post: return "POST";
    case HttpMethod::put: return "PUT";
    case HttpMethod::patch: return "PATCH";
    case HttpMethod::delete_: return "DELETE";
  }
  return "GET";
}

const char* content_type_name(BodyType body_type) {
  switch (body_type) {
    case BodyType::json: return "application/json";
    case BodyType::merge_patch: return "application/merge-patch+json";
    case BodyType::strategic_merge_patch: return "application/strategic-merge-patch+json";
    case BodyType::json_patch: return "application/json-patch+json";
  }
  return "application/json";
}

QueryParams list_query(const ListOptions& options) {
  QueryParams query;
  if (!options.label_selector.empty()) query.push_back({"labelSelector", options.label_selector});
  if (!options.field_selector.empty()) query.push_back({"fieldSelector", options.field_selector});
  if (options.limit) query.push_back({"limit", std::to_string(*options.limit)});
  if (!options.continue_token.empty()) query.push_back({"continue", options.continue_token});
  return query;
}

nlohmann::json delete_options_body(const DeleteOptions& options) {
  if (options.propagation_policy.empty() && !options.grace_period_seconds) return nullptr;
  nlohmann::json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  return body;
}

ApiExpected<std::unique_ptr<ApiClient>> ApiClient::create(ApiLoop& loop, ApiEndpoint endpoint,
                                                          ApiClientOptions options) {
  auto url = parse_server_url(endpoint.server);
  if (!url) return ApiError{ApiErrorKind::unreachable, 0, "", url.error().message};
  if (!endpoint.credentials) {
    return ApiError{ApiErrorKind::credentials, 0, "",
                    "The connection to " + url.value().text + " (" + endpoint.origin +
                        ") has no credential source."};
  }
  auto session = std::make_shared<ApiSession>(loop, std::move(endpoint), std::move(url).value(),
                                              options);
  return std::unique_ptr<ApiClient>(new ApiClient(std::move(session)));
}

ApiClient::~ApiClient() { session_->shut_down(); }

ApiCallHandle ApiClient::request(ApiRequest request, ResponseCallback done) {
  auto call = std::make_shared<RestCall>(session_, std::move(request), std::move(done));
  ApiCallHandle handle(session_->loop(), call);
  session_->loop().post([call] { call->begin(); });
  return handle;
}

ApiCallHandle ApiClient::get_object(std::string path, ResponseCallback done) {
  return request({HttpMethod::get, std::move(path), {}, std::nullopt, BodyType::json, std::nullopt},
                 std::move(done));
}

ApiCallHandle ApiClient::list_objects(std::string path, const ListOptions& options,
                                      ResponseCallback done) {
  return request({HttpMethod::get, std::move(path), list_query(options), std::nullopt,
                  BodyType::json, std::nullopt},
                 std::move(done));
}

ApiCallHandle ApiClient::create_object(std::string path, nlohmann::json object,
                                       ResponseCallback done) {
  return request({HttpMethod::post, std::move(path), {}, std::move(object), BodyType::json,
                  std::nullopt},
                 std::move(done));
}

ApiCallHandle ApiClient::patch_object(std::string path, nlohmann::json patch, BodyType patch_type,
                                      ResponseCallback done) {
  return request({HttpMethod::patch, std::move(path), {}, std::move(patch), patch_type,
                  std::nullopt},
                 std::move(done));
}

ApiCallHandle ApiClient::delete_object(std::string path, const DeleteOptions& options,
                                       ResponseCallback done) {
  nlohmann::json body = delete_options_body(options);
  std::optional<nlohmann::json> maybe_body;
  if (!body.is_null()) maybe_body = std::move(body);
  return request({HttpMethod::delete_, std::move(path), {}, std::move(maybe_body), BodyType::json,
                  std::nullopt},
                 std::move(done));
}

}  // namespace vc::kubernetes
