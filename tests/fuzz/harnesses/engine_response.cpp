// engine_response — whatever an engine's socket answers (or something posing as one): the HTTP
// response parser fed the bytes in pieces whose sizes the input's first byte chooses, the head
// handed on, the body decoded, EOF at the end. It must end in a verdict (complete, raw, an
// error, or "need more") without crashing, whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "response_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t body_bytes = 0;
  vc::engine::detail::ResponseParser::Events events;
  events.on_head = [](const vc::engine::HttpResponse& head) {
    // Exercise all three modes, as the client does for plain calls, HEAD and hijacks.
    if (head.status == 101) return vc::engine::detail::ResponseParser::BodyMode::kRawAfter;
    if (head.status == 204) return vc::engine::detail::ResponseParser::BodyMode::kSkip;
    return vc::engine::detail::ResponseParser::BodyMode::kParse;
  };
  events.on_body = [&body_bytes](std::string_view chunk) { body_bytes += chunk.size(); };
  vc::engine::detail::ResponseParser parser(std::move(events));
  using Outcome = vc::engine::detail::ResponseParser::Outcome;
  Outcome outcome = Outcome::kNeedMore;
  while (!bytes.empty() && outcome == Outcome::kNeedMore) {
    const std::size_t take = bytes.size() < piece ? bytes.size() : piece;
    outcome = parser.feed(bytes.substr(0, take));
    bytes.remove_prefix(take);
  }
  if (outcome == Outcome::kNeedMore) (void)parser.finish();
  if (body_bytes > size) __builtin_trap();  // decoded bytes never exceed what came in
  return 0;
}
