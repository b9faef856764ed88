// http_exchange.cpp — request out, response in, one completion.
#include "http_exchange.h"

namespace vc::engine::detail {
HttpExchange::HttpExchange(EngineLoop& loop, EngineAddress address, RequestOptions deadlines,
                           std::string request_bytes, bool head_request,
                           ExchangeCallbacks callbacks)
    : ConnectionOperation(loop, std::move(address), deadlines),
      request_bytes_(std::move(request_bytes)),
      head_request_(head_request),
      callbacks_(std::move(callbacks)),
      parser_(ResponseParser::Events{[this](const HttpResponse& head) { return on_head(head); },
                                     [this](std::string_view piece) { on_body(piece); }}) {}

void HttpExchange::on_connected() {
  socket().write(std::move(request_bytes_));
}

ResponseParser::BodyMode HttpExchange::on_head(const HttpResponse& head) {
  response_.status = head.status;
  response_.reason = head.reason;
  response_.headers = head.headers;
  if (callbacks_.on_head) stream_body_ = callbacks_.on_head(head);
  return head_request_ ? ResponseParser::BodyMode::kSkip : ResponseParser::BodyMode::kParse;
}

void HttpExchange::on_body(std::string_view piece) {
  if (finished() || body_too_large_) return;  // llhttp finishes its buffer after a cancel
  if (stream_body_) {
    if (callbacks_.on_body_piece) callbacks_.on_body_piece(piece);
    return;
  }
  if (response_.body.size() + piece.size() > kMaxBufferedBody) {
    body_too_large_ = true;
    return;
  }
  response_.body.append(piece);
}

void HttpExchange::on_bytes(std::string_view bytes) {
  const ResponseParser::Outcome outcome = parser_.feed(bytes);
  if (finished()) return;  // a streamed-piece callback cancelled us
  if (body_too_large_) {
    fail(make_error(EngineErrorKind::kProtocol,
                    "the engine's response body is larger than " +
                        std::to_string(kMaxBufferedBody / (1024 * 1024)) + " MiB",
                    response_.status));
    return;
  }
  switch (outcome) {
    case ResponseParser::Outcome::kNeedMore:
      return;
    case ResponseParser::Outcome::kComplete:
      complete();
      return;
    case ResponseParser::Outcome::kRaw:
      fail(make_error(EngineErrorKind::kProtocol,
                      "the engine switched protocols (status " + std::to_string(response_.status) +
                          ") on a plain request",
                      response_.status));
      return;
    case ResponseParser::Outcome::kError:
      fail(make_error(EngineErrorKind::kProtocol, parser_.error_text(), response_.status));
      return;
  }
}

void HttpExchange::on_end_of_stream() {
  const ResponseParser::Outcome outcome = parser_.finish();
  if (finished()) return;
  if (outcome == ResponseParser::Outcome::kComplete) {
    complete();
    return;
  }
  EngineError error =
      make_error(EngineErrorKind::kProtocol, parser_.error_text(), response_.status);
  if (parser_.cut_short()) error.kind = EngineErrorKind::kTransport;
  fail(std::move(error));
}

void HttpExchange::complete() {
  auto guard = shared_from_this();
  if (!finish()) return;
  auto on_done = std::move(callbacks_.on_done);
  callbacks_ = {};  // drop captured state now: callers' lambdas may reference their owners
  on_done(std::move(response_));
}

void HttpExchange::deliver_failure(EngineError error) {
  auto on_done = std::move(callbacks_.on_done);
  callbacks_ = {};
  if (on_done) on_done(std::move(error));
}

}  // namespace vc::engine::detail
