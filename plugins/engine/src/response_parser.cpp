// response_parser.cpp — llhttp callbacks collecting an HTTP response.
#include "response_parser.h"

namespace vc::engine::detail {
namespace {

ResponseParser& self_of(llhttp_t* parser) {
  return *static_cast<ResponseParser*>(parser->data);
}

// llhttp's on_headers_complete return values.
constexpr int kContinue = 0;
constexpr int kSkipBody = 1;
constexpr int kSkipBodyAndUpgrade = 2;

}  // namespace

ResponseParser::ResponseParser(Events events) : events_(std::move(events)) {
  llhttp_settings_init(&settings_);
  settings_.on_status = &ResponseParser::on_status;
  settings_.on_header_field = &ResponseParser::on_header_field;
  settings_.on_header_value = &ResponseParser::on_header_value;
  settings_.on_header_value_complete = &ResponseParser::on_header_value_complete;
  settings_.on_headers_complete = &ResponseParser::on_headers_complete;
  settings_.on_body = &ResponseParser::on_body;
  settings_.on_message_complete = &ResponseParser::on_message_complete;
  llhttp_init(&parser_, HTTP_RESPONSE, &settings_);
  parser_.data = this;
}

int ResponseParser::on_status(llhttp_t* parser, const char* at, std::size_t length) {
  self_of(parser).head_.reason.append(at, length);
  return 0;
}

int ResponseParser::on_header_field(llhttp_t* parser, const char* at, std::size_t length) {
  self_of(parser).field_.append(at, length);  // a name may arrive in pieces
  return 0;
}

int ResponseParser::on_header_value(llhttp_t* parser, const char* at, std::size_t length) {
  self_of(parser).value_.append(at, length);
  return 0;
}

int ResponseParser::on_header_value_complete(llhttp_t* parser) {
  ResponseParser& self = self_of(parser);
  self.head_.headers.add(self.field_, self.value_);
  self.field_.clear();
  self.value_.clear();
  return 0;
}

int ResponseParser::on_headers_complete(llhttp_t* parser) {
  ResponseParser& self = self_of(parser);
  self.head_.status = parser->status_code;
  self.head_complete_ = true;
  const BodyMode mode = self.events_.on_head ? self.events_.on_head(self.head_) : BodyMode::kParse;
  switch (mode) {
    case BodyMode::kParse:
      return kContinue;
    case BodyMode::kSkip:
      return kSkipBody;
    case BodyMode::kRawAfter:
      return kSkipBodyAndUpgrade;
  }
  return kContinue;
}

int ResponseParser::on_body(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser& self = self_of(parser);
  if (self.events_.on_body) self.events_.on_body(std::string_view(at, length));
  return 0;
}

int ResponseParser::on_message_complete(llhttp_t* parser) {
  self_of(parser).message_complete_ = true;
  return 0;
}

ResponseParser::Outcome ResponseParser::fail() {
  const char* reason = llhttp_get_error_reason(&parser_);
  error_text_ =
      std::string("invalid HTTP from the engine: ") +
      (reason != nullptr && *reason != '\0' ? reason
                                            : llhttp_errno_name(llhttp_get_errno(&parser_)));
  return Outcome::kError;
}

ResponseParser::Outcome ResponseParser::feed(std::string_view bytes) {
  const llhttp_errno_t rc = llhttp_execute(&parser_, bytes.data(), bytes.size());
  if (rc == HPE_PAUSED_UPGRADE) {
    // Either a 101 or our own kRawAfter decision: everything after the head is not HTTP.
    const char* raw_start = llhttp_get_error_pos(&parser_);
    raw_offset_ =
        raw_start != nullptr ? static_cast<std::size_t>(raw_start - bytes.data()) : bytes.size();
    return Outcome::kRaw;
  }
  // Bytes after a complete response (a keep-alive engine's next answer, or junk) are not ours;
  // llhttp may flag them as an error, which must not hide the complete response.
  if (message_complete_) return Outcome::kComplete;
  if (rc != HPE_OK) return fail();
  return Outcome::kNeedMore;
}

ResponseParser::Outcome ResponseParser::finish() {
  if (message_complete_) return Outcome::kComplete;
  // llhttp_finish completes a body that runs until the close; anything else still open at EOF
  // (a head, a Content-Length or chunked body) was cut short, whatever llhttp's code says.
  (void)llhttp_finish(&parser_);
  if (message_complete_) return Outcome::kComplete;
  cut_short_ = true;
  error_text_ = head_complete_
                    ? "the engine closed the connection in the middle of the response body"
                    : "the engine closed the connection before sending a complete response";
  return Outcome::kError;
}

}  // namespace vc::engine::detail
