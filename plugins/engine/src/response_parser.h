// response_parser.h — an HTTP/1.1 response parser over llhttp.
//
// llhttp does the parsing (status line, headers, Content-Length and chunked bodies, bodies
// read until close); this class collects the head, hands body bytes on as they are decoded, and
// reports where a hijacked connection's raw bytes begin. Loop thread only (like the connection
// that feeds it).
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "vc_engine/http_types.h"

namespace vc::engine::detail {

class ResponseParser {
 public:
  // What to do with the bytes after the head; decided when the head is complete.
  enum class BodyMode {
    kParse,     // an HTTP body (Content-Length, chunked, or until close), via on_body
    kSkip,      // no body (the answer to a HEAD request)
    kRawAfter,  // the connection stops being HTTP: raw bytes follow (exec hijack)
  };
  struct Events {
    // The head (status, reason, headers; body empty) is complete.
    std::function<BodyMode(const HttpResponse& head)> on_head;
    // A piece of the decoded (de-chunked) body.
    std::function<void(std::string_view bytes)> on_body;
  };
  enum class Outcome {
    kNeedMore,  // everything consumed, the response is not complete yet
    kComplete,  // the response is complete (bytes after it are ignored)
    kRaw,       // the head is complete and the rest is raw: see raw_offset()
    kError,     // not valid HTTP: see error_text()
  };

  explicit ResponseParser(Events events);
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  // Feeds bytes read from the socket. Once the outcome is not kNeedMore, do not feed again.
  Outcome feed(std::string_view bytes);
  // The connection reached EOF: completes a body that runs until close, else kError (the
  // response was cut short).
  Outcome finish();

  // After kRaw: the offset, within the bytes of the last feed(), of the first raw byte.
  std::size_t raw_offset() const { return raw_offset_; }
  const HttpResponse& head() const { return head_; }
  bool head_complete() const { return head_complete_; }
  // After kError: why, e.g. "invalid HTTP from the engine: Invalid header value char".
  const std::string& error_text() const { return error_text_; }
  // After kError from finish(): the bytes were valid but the engine closed the connection
  // before the response was complete (a transport problem, not a protocol one).
  bool cut_short() const { return cut_short_; }

 private:
  static int on_status(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_field(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_value(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_value_complete(llhttp_t* parser);
  static int on_headers_complete(llhttp_t* parser);
  static int on_body(llhttp_t* parser, const char* at, std::size_t length);
  static int on_message_complete(llhttp_t* parser);

  Outcome fail();

  Events events_;
  llhttp_settings_t settings_{};
  llhttp_t parser_{};
  HttpResponse head_;
  std::string field_;
  std::string value_;
  bool head_complete_ = false;
  bool message_complete_ = false;
  bool cut_short_ = false;
  std::size_t raw_offset_ = 0;
  std::string error_text_;
};

}  // namespace vc::engine::detail
