// channel_protocol.h — the wire format of Kubernetes' channel WebSocket subprotocols, which
// carry exec and port-forward streams: pure functions, no I/O.
//
// On "v4.channel.k8s.io" and "v5.channel.k8s.io" every binary message starts with one byte, the
// channel it belongs to; the rest is that channel's bytes, passed through unchanged.
//   exec:          0 stdin (client to server), 1 stdout, 2 stderr, 3 status, 4 resize (client to
//                  server, JSON {"Width":cols,"Height":rows} for a TTY). The status channel
//                  carries one JSON metav1.Status when the command ends: "Success", or "Failure"
//                  with reason "NonZeroExitCode" and the code in details.causes[] (the cause
//                  whose reason is "ExitCode", its message the decimal code), or "Failure" with
//                  another reason when the command could not run.
//   port-forward:  for the n-th port of the request, channel 2n carries its data (both ways)
//                  and 2n+1 the server's error text. The server's first message on each of the
//                  two starts with the port number, 2 bytes little-endian.
// v5 adds one client-to-server message, the close signal {255, channel}: that channel (stdin)
// has ended, the server closes its end of it. The API server speaks v5 itself from Kubernetes
// 1.30 (1.29 with the feature gate TranslateStreamCloseWebsocketRequests) when the client offers
// it; before, the upgrade goes through to the node, which speaks v4 at most. v4 has no way to
// end stdin short of ending the whole connection.
//
// Thread rule: pure functions and plain values, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vc-backend-1/cpp/expected.h>

namespace vc::kubernetes {

inline constexpr std::string_view kChannelProtocolV4 = "v4.channel.k8s.io";
inline constexpr std::string_view kChannelProtocolV5 = "v5.channel.k8s.io";

enum class ChannelProtocol { v4, v5 };

// The protocol a Sec-WebSocket-Protocol answer names; nullopt for any other (or none).
std::optional<ChannelProtocol> channel_protocol_named(std::string_view name);
const char* channel_protocol_name(ChannelProtocol protocol);

// Exec's channel numbers.
inline constexpr std::uint8_t kStdinChannel = 0;
inline constexpr std::uint8_t kStdoutChannel = 1;
inline constexpr std::uint8_t kStderrChannel = 2;
inline constexpr std::uint8_t kStatusChannel = 3;
inline constexpr std::uint8_t kResizeChannel = 4;
// The first byte of v5's close signal; no channel has this number.
inline constexpr std::uint8_t kCloseSignal = 255;

// One message taken apart: its channel and the bytes that follow.
struct ChannelMessage {
  std::uint8_t channel = 0;
  std::string_view payload;  // points into the message given to decode_channel_message()
};

// `payload` on `channel`, as one message.
std::string encode_channel_message(std::uint8_t channel, std::string_view payload);
// nullopt for an empty message (it has no channel byte; servers send none, ignore it).
std::optional<ChannelMessage> decode_channel_message(std::string_view message);

// v5's close signal for `channel` ({255, channel}).
std::string encode_close_signal(std::uint8_t channel);

// The resize message for a TTY of `columns` x `rows` (on the resize channel).
std::string encode_resize_message(std::uint16_t columns, std::uint16_t rows);

// --- exec's status --------------------------------------------------------------------------

// How a command ended, as the status channel says.
struct ExecExit {
  // The exit code when the process ran and ended: 0 on success. A process killed by signal n
  // is reported by the container runtime, usually as 128 + n.
  std::optional<int> exit_code;
  // The Status's reason and message (bounded) when it is a failure: "NonZeroExitCode" and
  // "command terminated with non-zero exit code: ...", or e.g. "InternalError" and "error
  // executing command in container: ..." when the command could not run (then no exit_code).
  std::string reason;
  std::string message;
};

// The status channel's JSON as an ExecExit; the error is a phrase saying what is wrong with it
// ("it is not JSON", "its exit code \"x\" is not a number from 0 to 255").
sdk::Expected<ExecExit, std::string> parse_exec_status(std::string_view json);

// --- port-forward -----------------------------------------------------------------------------

// Port-forward's channels for the `index`-th port of a request.
inline constexpr std::uint8_t port_data_channel(std::uint8_t index) { return 2 * index; }
inline constexpr std::uint8_t port_error_channel(std::uint8_t index) { return 2 * index + 1; }

// The 2-byte little-endian port number that starts the server's first message on a channel.
std::string encode_port_prefix(std::uint16_t port);

// Takes the port prefix off the start of one port-forward channel, whatever the messages' sizes.
class PortPrefixReader {
 public:
  explicit PortPrefixReader(std::uint16_t expected_port) : expected_port_(expected_port) {}

  // The bytes of `payload` that follow the prefix (empty while the prefix is incomplete), or a
  // phrase saying the prefix names another port than the one asked for.
  sdk::Expected<std::string_view, std::string> feed(std::string_view payload);

  bool prefix_complete() const { return prefix_.size() == 2; }

 private:
  std::uint16_t expected_port_;
  std::string prefix_;
};

}  // namespace vc::kubernetes
