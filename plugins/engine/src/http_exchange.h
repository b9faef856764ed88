// http_exchange.h — one HTTP request and its response on a fresh connection.
//
// Buffers the body, or streams it piece by piece when the head callback asks for that (NDJSON
// streams). The completion callback runs exactly once on the loop thread (or on the caller's
// thread when the loop was already stopping).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "connection_operation.h"
#include "response_parser.h"

namespace vc::engine::detail {

struct ExchangeCallbacks {
  // The head arrived. Return true to receive the body through on_body_piece instead of having
  // it buffered in the final response. Optional (buffer everything).
  std::function<bool(const HttpResponse& head)> on_head;
  // A piece of a streamed body.
  std::function<void(std::string_view piece)> on_body_piece;
  // The end: the response (body empty when it was streamed), or the error. Required.
  std::function<void(Result<HttpResponse>)> on_done;
};

class HttpExchange final : public ConnectionOperation {
 public:
  // The largest body buffered in memory; a larger one fails with kProtocol instead of eating
  // the plugin's memory.
  static constexpr std::size_t kMaxBufferedBody = 256u * 1024u * 1024u;

  // `request_bytes` is the complete request (request_writer.h). `head_request` = the method was
  // HEAD (the response then has no body whatever its headers say).
  HttpExchange(EngineLoop& loop, EngineAddress address, RequestOptions deadlines,
               std::string request_bytes, bool head_request, ExchangeCallbacks callbacks);

 private:
  void on_connected() override;
  void on_bytes(std::string_view bytes) override;
  void on_end_of_stream() override;
  void deliver_failure(EngineError error) override;

  ResponseParser::BodyMode on_head(const HttpResponse& head);
  void on_body(std::string_view piece);
  void complete();

  std::string request_bytes_;
  bool head_request_;
  ExchangeCallbacks callbacks_;
  ResponseParser parser_;
  HttpResponse response_;
  bool stream_body_ = false;
  bool body_too_large_ = false;
};

}  // namespace vc::engine::detail
