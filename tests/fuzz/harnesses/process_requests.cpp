// process_requests — what reaches the process supervisor on its Unix socket inside a computer
// (docs/processes.md, "The supervisor's protocol"): anybody in the computer can connect, so the
// bytes are outside input. They go through MessageReader in reads whose sizes the input
// chooses, as the supervisor reads a client, and every complete message through
// parse_process_request; the same bytes, as if a process had written them, through the UTF-8
// repair and cutting the supervisor's output reads use (utf8_text.h), with a budget the input
// chooses.
//
// Input: byte 0 picks the read size (1-64) and whether the rest is sent as it is or framed
// first (encode_message), which lets the fuzzer reach the request parser without having to
// guess lengths; byte 1 the reader's limit (the supervisor's 1 MiB, or 0-1016 bytes); byte 2
// the output budget (1-255 bytes) and whether the stream is still open. In each connection the
// supervisor takes one message; the bytes after it start a new connection.
//
// Beyond "no crash": the reader agrees with a model of the framing (a body exactly when the
// declared length has arrived and fits the limit, nothing held beyond the limit unless it
// reports the message malformed); a request is either accepted with every field in its
// documented range or refused with a message that is non-empty, short and valid UTF-8; repaired
// text is valid UTF-8, equal to the bytes when they were UTF-8 already, at most three bytes per
// byte taken, and reads cut by the budget add up to the whole text (no character split or lost).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "process_request.h"
#include "socket_messages.h"
#include "utf8_text.h"

namespace {

namespace ea = vc::exec_agent;

// A refusal names the field and the allowed range, and quotes at most a short piece of what
// was sent: it goes back to a model as the tool's error.
constexpr std::size_t kMaxRefusalBytes = 512;

void check(bool holds) {
  if (!holds) __builtin_trap();
}

// An implementation of UTF-8 validity independent of utf8_text.cpp's: decode each sequence to
// its code point and reject overlong forms, surrogates and code points past U+10FFFF.
bool is_valid_utf8(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (lead < 0x80) {
      ++at;
      continue;
    }
    if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code = lead & 0x07;
    } else {
      return false;
    }
    if (text.size() - at < length) return false;
    for (std::size_t i = 1; i < length; ++i) {
      const auto next = static_cast<unsigned char>(text[at + i]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    at += length;
  }
  return true;
}

std::string as_valid_utf8(std::string_view bytes) {
  std::string text;
  ea::append_as_valid_utf8(text, bytes);
  return text;
}

void check_request(const ea::ProcessRequest& request) {
  using ea::RequestOp;
  const bool names_process = request.op == RequestOp::kRead || request.op == RequestOp::kWrite ||
                             request.op == RequestOp::kKill;
  if (!names_process) check(request.process_id.empty());
  check(request.wait_ms >= 0 && request.wait_ms <= ea::kMaxWaitMs);
  check(request.max_bytes >= 1 && request.max_bytes <= ea::kMaxMaxBytes);
  check(request.signal >= 1 && request.signal <= 64);
  check(request.input.size() <= ea::kMaxInputBytes);
  if (request.op == RequestOp::kStart) {
    check(!request.argv.empty() && request.argv.size() <= ea::kMaxArguments);
    check(!request.argv.front().empty());
    std::size_t bytes = 0;
    for (const auto& word : request.argv) {
      check(word.find('\0') == std::string::npos);
      bytes += word.size() + 1;
    }
    check(bytes <= ea::kMaxArgumentBytes);
    check(!request.cwd || (!request.cwd->empty() && request.cwd->find('\0') == std::string::npos));
    check(request.env.size() <= ea::kMaxEnvironmentVariables);
    for (const auto& [name, value] : request.env) {
      check(!name.empty() && value.find('\0') == std::string::npos);
    }
    check(request.rows >= 2 && request.rows <= 500);
    check(request.cols >= 10 && request.cols <= 1000);
  } else {
    check(request.argv.empty() && request.env.empty() && !request.cwd);
  }
  if (request.op != RequestOp::kWrite) check(request.input.empty() && !request.close_stdin);
  if (request.op != RequestOp::kRead) check(!request.from);
  if (request.from) {
    constexpr std::uint64_t kLargest = std::uint64_t{1} << 62;
    check(request.from->first <= kLargest && request.from->second <= kLargest);
  }
  // The signal's name is what process_info shows; it is never empty.
  check(!ea::signal_name(request.signal).empty());
}

void parse_body(std::string_view body) {
  const ea::ParsedProcessRequest parsed = ea::parse_process_request(body);
  if (parsed.request) {
    check(parsed.error.empty());
    check_request(*parsed.request);
  } else {
    check(!parsed.error.empty());
    check(parsed.error.size() <= kMaxRefusalBytes);
    check(is_valid_utf8(parsed.error));
  }
}

// One connection as the supervisor reads it: pieces of `piece` bytes into a reader until its
// message is complete or malformed (the client is dropped). Returns how many bytes it took.
std::size_t read_connection(std::string_view bytes, std::size_t piece, std::size_t limit) {
  ea::MessageReader reader(limit);
  std::size_t taken = 0;
  while (taken < bytes.size()) {
    const std::size_t got = std::min(piece, bytes.size() - taken);
    reader.feed(bytes.substr(taken, got));
    taken += got;
    check(reader.buffered() == taken);
    // The model: a 4-byte big-endian length, then exactly that many bytes, at most `limit`.
    const std::string_view sent = bytes.substr(0, taken);
    bool malformed = false;
    bool complete = false;
    std::size_t declared = 0;
    if (sent.size() >= ea::kMessageHeaderSize) {
      for (std::size_t i = 0; i < ea::kMessageHeaderSize; ++i) {
        declared = (declared << 8) | static_cast<unsigned char>(sent[i]);
      }
      malformed = declared > limit || sent.size() > ea::kMessageHeaderSize + declared;
      complete = !malformed && sent.size() == ea::kMessageHeaderSize + declared;
    }
    check(reader.malformed() == malformed);
    const auto body = reader.body();
    check(body.has_value() == complete);
    if (malformed) return taken;  // dropped
    check(reader.buffered() <= ea::kMessageHeaderSize + limit);
    if (body) {
      check(body->size() == declared && body->size() <= limit);
      check(*body == sent.substr(ea::kMessageHeaderSize));
      parse_body(*body);
      return taken;
    }
  }
  return taken;  // the client hung up before its message was whole
}

// Process output read in pieces of at most `budget` bytes (at least 4, as OutputStream::take
// reads), each cut before a character the budget would split; while the stream is open, a
// character still being written at its end is not readable yet.
void read_output(std::string_view bytes, std::size_t budget, bool open) {
  const std::string whole = as_valid_utf8(bytes);
  check(is_valid_utf8(whole));
  check(whole.size() <= 3 * bytes.size());
  if (is_valid_utf8(bytes)) check(whole == bytes);
  check(as_valid_utf8(whole) == whole);

  std::size_t readable = bytes.size();
  if (open) {
    const std::size_t look = std::min<std::size_t>(bytes.size(), 3);
    const std::size_t held = ea::incomplete_utf8_tail(bytes.substr(bytes.size() - look));
    check(held <= look);
    readable -= held;
    // What is held is the start of a character, so it can only become part of one: the text
    // before it and the text of it, should the stream end there, make the whole.
    check(as_valid_utf8(bytes.substr(0, readable)) + as_valid_utf8(bytes.substr(readable)) ==
          whole);
  }
  const std::size_t step = std::max<std::size_t>(budget, 4);
  std::string joined;
  std::size_t start = 0;
  while (start < readable) {
    std::size_t end = std::min(readable, start + step);
    std::string_view piece = bytes.substr(start, end - start);
    if (end < readable) {
      const std::size_t held_back = ea::incomplete_utf8_tail(piece);
      check(held_back <= 3 && held_back < piece.size());  // every read makes progress
      piece.remove_suffix(held_back);
      end -= held_back;
    }
    const std::string text = as_valid_utf8(piece);
    check(is_valid_utf8(text));
    check(piece.size() <= step && text.size() <= 3 * piece.size());
    joined += text;
    start = end;
  }
  check(joined == as_valid_utf8(bytes.substr(0, readable)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  const bool frame_it = (data[0] & 0x80) != 0;
  const std::size_t limit = (data[1] & 0x80) != 0 ? ea::kMaxRequestBytes : (data[1] & 0x7F) * 8u;
  const std::size_t budget = 1 + (data[2] & 0x7F) * 2u;
  const bool open = (data[2] & 0x80) != 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 3, size - 3);

  const std::string stream = frame_it ? ea::encode_message(rest) : std::string(rest);
  std::string_view left = stream;
  while (!left.empty()) left.remove_prefix(read_connection(left, piece, limit));

  read_output(rest, budget, open);
  return 0;
}
