// exec_agent_frames — what an exec agent sends back (docs/exec-agent.md), as the plugin reads it:
// the byte stream cut into reads whose sizes the first byte chooses, through the frame reader,
// and every payload through the readers of the agent's hello, exit and error documents. A
// misbehaving agent is outside input: the computer's root can replace it.
//
// Beyond "no crash": every frame decoded re-encodes to exactly the bytes it came from; once
// the reader reports an error it yields nothing more; payloads never exceed the limit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <vc_exec_agent/frames.h>

#include <vc_agent_channel/exec_agent_documents.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  vc::exec_agent::FrameReader reader;
  std::string consumed;  // the frames decoded, encoded again
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    reader.feed(bytes.substr(at, piece));
    while (auto frame = reader.next()) {
      if (frame->payload.size() > vc::exec_agent::kMaxPayload) __builtin_trap();
      vc::exec_agent::append_frame(consumed, frame->type, frame->id, frame->payload);
      (void)vc::agent_channel::parse_agent_hello(frame->payload);
      if (auto exit = vc::agent_channel::parse_agent_exit(frame->payload)) {
        if (exit->outcome.size() > frame->payload.size()) __builtin_trap();
      }
      (void)vc::agent_channel::agent_error_message(frame->payload);
    }
    if (!reader.error().empty() && reader.next()) __builtin_trap();
  }
  if (bytes.substr(0, consumed.size()) != consumed) __builtin_trap();
  if (reader.error().empty() && consumed.size() + reader.buffered() != bytes.size()) __builtin_trap();
  return 0;
}
