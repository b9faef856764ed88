// api_watch.cpp — a watch as a state machine on the loop: credentials, its own connection, the
// GET, the answer's header, then the chunked body read piece by piece into NDJSON lines.
// Thread rule: see api_watch.h.
#include "api_watch.h"

#include <array>
#include <limits>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "api_status.h"
#include "ndjson_splitter.h"

namespace vc::kubernetes {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

// How long after its timeoutSeconds a watch may still run before the connection is taken for
// dead: the server ends a watch at timeoutSeconds, give or take its own scheduling.
constexpr std::chrono::seconds kServerEndGrace{60};
// What is read of a refusal's body (a Status object is well under this).
constexpr std::size_t kMaxRefusalBytes = 64 * 1024;
constexpr std::size_t kReadPieceBytes = 64 * 1024;

std::optional<WatchEventType> parse_event_type(const nlohmann::json& type) {
  if (!type.is_string()) return std::nullopt;
  const auto& name = type.get_ref<const std::string&>();
  if (name == "ADDED") return WatchEventType::added;
  if (name == "MODIFIED") return WatchEventType::modified;
  if (name == "DELETED") return WatchEventType::deleted;
  if (name == "BOOKMARK") return WatchEventType::bookmark;
  if (name == "ERROR") return WatchEventType::error;
  return std::nullopt;
}

class WatchStream final : public ApiOperation, public std::enable_shared_from_this<WatchStream> {
 public:
  WatchStream(std::shared_ptr<ApiSession> session, WatchRequest request,
              WatchEventCallback on_event, WatchEndCallback on_end)
      : session_(std::move(session)),
        path_(request.path),
        timeout_seconds_(request.timeout_seconds),
        splitter_(request.max_event_bytes),
        max_event_bytes_(request.max_event_bytes),
        on_event_(std::move(on_event)),
        on_end_(std::move(on_end)) {
    http_request_.method(http::verb::get);
    http_request_.target(
        make_request_target(session_->url().base_path, request.path, watch_query(request)));
    http_request_.version(11);
    http_request_.set(http::field::host, session_->host_header());
    http_request_.set(http::field::user_agent, "mcp-virtual-computer-kubernetes/0.1");
    http_request_.set(http::field::accept, "application/json");
  }

  // [loop-thread] Posted by watch().
  void begin() {
    if (ended_) return;
    session_->track(shared_from_this());
    if (ended_) return;
    timer_.emplace(session_->loop().context());
    arm_timer(std::chrono::steady_clock::now() + session_->options().request_timeout);
    use_credentials(0);
  }

  void abort() override {
    if (ended_) return;
    stop_io();
    session_->loop().post([on_end = std::move(on_end_), error = error_with(
                               ApiErrorKind::cancelled, "The watch of " + quoted_path() +
                                                            " at " + session_->url().text +
                                                            " was stopped.")] { on_end(error); });
  }

 private:
  ApiCallSummary summary() const { return {"GET", path_, session_->url().text, true}; }
  std::string quoted_path() const { return bounded_quote(path_, 200); }
  static ApiError error_with(ApiErrorKind kind, std::string message) {
    return ApiError{kind, 0, "", std::move(message)};
  }

  void arm_timer(std::chrono::steady_clock::time_point deadline) {
    timer_->expires_at(deadline);
    timer_->async_wait([self = shared_from_this()](const error_code& error) {
      if (!error) self->expire();
    });
  }

  void use_credentials(std::uint64_t refused_generation) {
    session_->credentials().acquire(
        refused_generation,
        [self = shared_from_this()](ApiExpected<CredentialCache::Snapshot> snapshot) {
          if (self->ended_) return;
          if (!snapshot) return self->finish(snapshot.error());
          self->credentials_ = snapshot.value();
          self->connect();
        });
  }

  void connect() {
    const std::string& token = credentials_->credentials.bearer_token;
    if (token.empty()) {
      http_request_.erase(http::field::authorization);
    } else {
      http_request_.set(http::field::authorization, "Bearer " + token);
    }
    std::weak_ptr<WatchStream> weak = shared_from_this();
    connection_ = session_->open_connection(
        credentials_, timer_->expiry(),
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
    // A watch's body has no end but the server's. Not boost::none: Beast 1.74 compares a
    // Content-Length with the optional limit and takes an unset one for less than any length.
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    http::async_write(*connection_->stream, http_request_,
                      [self = shared_from_this()](const error_code& error, std::size_t) {
                        if (self->ended_) return;
                        if (error) return self->on_broken(error);
                        http::async_read_header(
                            *self->connection_->stream, self->connection_->buffer, *self->parser_,
                            [self](const error_code& read_error, std::size_t) {
                              if (self->ended_) return;
                              if (read_error) return self->on_broken(read_error);
                              self->on_header();
                            });
                      });
  }

  void on_header() {
    const int status = parser_->get().result_int();
    if (status == 401 && !retried_refused_credentials_) {
      retried_refused_credentials_ = true;
      connection_->close();  // its answer is not read: the connection cannot be reused
      connection_.reset();   // nothing is pending on it: its last read just completed
      return use_credentials(credentials_->generation);
    }
    refusal_status_ = status == 200 ? 0 : status;
    if (status == 200) {
      streaming_ = true;
      if (timeout_seconds_) {
        arm_timer(std::chrono::steady_clock::now() + std::chrono::seconds(*timeout_seconds_) +
                  kServerEndGrace);
      } else {
        timer_->cancel();
      }
    }
    take({});  // the header may have been the whole answer
  }

  void read_piece() {
    auto& body = parser_->get().body();
    body.data = piece_.data();
    body.size = piece_.size();
    parser_->eager(false);  // one step per read: an event is handed out as soon as it came
    http::async_read_some(*connection_->stream, connection_->buffer, *parser_,
                          [self = shared_from_this()](error_code error, std::size_t) {
                            if (self->ended_) return;
                            if (error == http::error::need_buffer) error = {};
                            if (error) return self->on_broken(error);
                            const std::size_t length =
                                self->piece_.size() - self->parser_->get().body().size;
                            self->take(std::string_view(self->piece_.data(), length));
                          });
  }

  // Bytes of the answer's body; reads on until the answer is complete or the watch has ended.
  void take(std::string_view bytes) {
    if (refusal_status_ != 0) {
      refusal_text_.append(bytes.substr(0, kMaxRefusalBytes - refusal_text_.size()));
      if (parser_->is_done() || refusal_text_.size() >= kMaxRefusalBytes) {
        return finish(api_error_from_answer(summary(), refusal_status_, refusal_text_));
      }
      return read_piece();
    }
    const bool within_bound =
        splitter_.feed(bytes, [this](std::string_view line) { return on_line(line); });
    if (ended_) return;
    if (!within_bound) {
      return finish(protocol_error("sent an event larger than " +
                                   describe_size(max_event_bytes_)));
    }
    if (parser_->is_done()) return finish(ApiExpected<void>());  // the server ended the watch
    read_piece();
  }

  // One event; false when the watch has ended because of it (or during on_event).
  bool on_line(std::string_view line) {
    const auto event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    const auto type = event.is_object() && event.contains("type")
                          ? parse_event_type(event["type"])
                          : std::nullopt;
    if (!type || !event.contains("object")) {
      finish(protocol_error("sent a line that is not a watch event: \"" +
                            bounded_quote(std::string(line), 100) + "\""));
      return false;
    }
    on_event_(WatchEvent{*type, event["object"]});
    if (ended_) return false;  // stopped from on_event
    if (*type == WatchEventType::error) {
      finish(api_error_from_watch_status(summary(), event["object"]));
      return false;
    }
    return true;
  }

  void on_broken(const error_code& error) {
    if (is_http_syntax_error(error)) {
      return finish(protocol_error("answered the watch with something that is not HTTP (" +
                                   error.message() + ")"));
    }
    finish(transport_failure(session_->url(), ApiErrorKind::unreachable,
                             "the connection of the watch of " + quoted_path() + " broke (" +
                                 error.message() + ")"));
  }

  ApiError protocol_error(const std::string& what) const {
    return error_with(ApiErrorKind::protocol, "The Kubernetes API at " + session_->url().text +
                                                  " " + what + " (watch of " + quoted_path() +
                                                  ").");
  }

  void expire() {
    if (ended_) return;
    if (streaming_) {
      return finish(error_with(
          ApiErrorKind::timeout,
          "The watch of " + quoted_path() + " at " + session_->url().text +
              " went on " + std::to_string(kServerEndGrace.count()) +
              " s past its timeoutSeconds; its connection is taken for dead."));
    }
    finish(error_with(ApiErrorKind::timeout,
                      "The Kubernetes API at " + session_->url().text +
                          " did not begin the watch of " + quoted_path() + " within " +
                          describe_duration(session_->options().request_timeout) +
                          ". Is the cluster overloaded or the network slow? --api-timeout "
                          "sets the limit."));
  }

  void stop_io() {
    ended_ = true;
    if (timer_) timer_->cancel();
    if (connection_) connection_->close();
  }

  void finish(ApiExpected<void> end) {
    if (ended_) return;
    stop_io();
    auto on_end = std::move(on_end_);
    on_end(std::move(end));
  }

  std::shared_ptr<ApiSession> session_;
  std::string path_;
  std::optional<int> timeout_seconds_;
  NdjsonSplitter splitter_;
  std::size_t max_event_bytes_;
  WatchEventCallback on_event_;
  WatchEndCallback on_end_;
  http::request<http::empty_body> http_request_;

  // Loop thread only:
  bool ended_ = false;
  bool retried_refused_credentials_ = false;
  std::optional<asio::steady_timer> timer_;
  CredentialCache::Snapshot credentials_;
  std::shared_ptr<HttpConnection> connection_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
  bool streaming_ = false;   // the server answered 200: events are coming
  int refusal_status_ = 0;  // the status of an answer that is not 200, while its body is read
  std::string refusal_text_;
  std::array<char, kReadPieceBytes> piece_{};
};

}  // namespace

const char* watch_event_type_name(WatchEventType type) {
  switch (type) {
    case WatchEventType::added: return "ADDED";
    case WatchEventType::modified: return "MODIFIED";
    case WatchEventType::deleted: return "DELETED";
    case WatchEventType::bookmark: return "BOOKMARK";
    case WatchEventType::error: return "ERROR";
  }
  return "ERROR";
}

QueryParams watch_query(const WatchRequest& request) {
  QueryParams query{{"watch", "true"}};
  if (request.allow_bookmarks) query.push_back({"allowWatchBookmarks", "true"});
  if (!request.resource_version.empty()) {
    query.push_back({"resourceVersion", request.resource_version});
  }
  if (!request.label_selector.empty()) query.push_back({"labelSelector", request.label_selector});
  if (!request.field_selector.empty()) query.push_back({"fieldSelector", request.field_selector});
  if (request.timeout_seconds) {
    query.push_back({"timeoutSeconds", std::to_string(*request.timeout_seconds)});
  }
  return query;
}

WatchHandle watch(ApiClient& client, WatchRequest request, WatchEventCallback on_event,
                  WatchEndCallback on_end) {
  const auto& session = client.session();
  auto stream = std::make_shared<WatchStream>(session, std::move(request), std::move(on_event),
                                              std::move(on_end));
  WatchHandle handle(ApiOperationHandle(session->loop(), stream));
  session->loop().post([stream] { stream->begin(); });
  return handle;
}

}  // namespace vc::kubernetes
