// channel_protocol.cpp — channel bytes, the close signal, resize and status messages, port
// prefixes. Thread rule: pure functions, any thread.
#include "channel_protocol.h"

#include <charconv>

#include <nlohmann/json.hpp>

#include "api_error.h"

namespace vc::kubernetes {
namespace {

// A string member of a JSON object, "" when absent or not a string.
std::string string_member(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The exit code a "NonZeroExitCode" Status carries in details.causes[reason=ExitCode].
sdk::Expected<int, std::string> exit_code_of(const nlohmann::json& status) {
  const auto details = status.find("details");
  if (details == status.end() || !details->is_object()) {
    return std::string("it reports a non-zero exit code without details");
  }
  const auto causes = details->find("causes");
  if (causes != details->end() && causes->is_array()) {
    for (const auto& cause : *causes) {
      if (!cause.is_object() || string_member(cause, "reason") != "ExitCode") continue;
      const std::string text = string_member(cause, "message");
      int code = -1;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), code);
      if (error != std::errc() || end != text.data() + text.size() || code < 0 || code > 255) {
        return "its exit code \"" + bounded_quote(text, 40) + "\" is not a number from 0 to 255";
      }
      return code;
    }
  }
  return std::string("it reports a non-zero exit code but names none");
}

}  // namespace

std::optional<ChannelProtocol> channel_protocol_named(std::string_view name) {
  if (name == kChannelProtocolV5) return ChannelProtocol::v5;
  if (name == kChannelProtocolV4) return ChannelProtocol::v4;
  return std::nullopt;
}

const char* channel_protocol_name(ChannelProtocol protocol) {
  return protocol == ChannelProtocol::v5 ? kChannelProtocolV5.data() : kChannelProtocolV4.data();
}

std::string encode_channel_message(std::uint8_t channel, std::string_view payload) {
  std::string message;
  message.reserve(payload.size() + 1);
  message.push_back(static_cast<char>(channel));
  message.append(payload);
  return message;
}

std::optional<ChannelMessage> decode_channel_message(std::string_view message) {
  if (message.empty()) return std::nullopt;
  return ChannelMessage{static_cast<std::uint8_t>(message.front()), message.substr(1)};
}

std::string encode_close_signal(std::uint8_t channel) {
  return std::string{static_cast<char>(kCloseSignal), static_cast<char>(channel)};
}

std::string encode_resize_message(std::uint16_t columns, std::uint16_t rows) {
  // remotecommand.TerminalSize has no JSON tags: its fields are named as in Go.
  const nlohmann::json size = {{"Width", columns}, {"Height", rows}};
  return encode_channel_message(kResizeChannel, size.dump());
}

sdk::Expected<ExecExit, std::string> parse_exec_status(std::string_view json) {
  const nlohmann::json status = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (status.is_discarded() || !status.is_object()) return std::string("it is not a JSON object");
  const std::string outcome = string_member(status, "status");
  if (outcome == "Success") return ExecExit{0, "", ""};
  if (outcome != "Failure") {
    return "its status \"" + bounded_quote(outcome, 40) + "\" is neither Success nor Failure";
  }
  ExecExit exit;
  exit.reason = string_member(status, "reason");
  exit.message = bounded_quote(string_member(status, "message"));
  if (exit.reason == "NonZeroExitCode") {
    auto code = exit_code_of(status);
    if (!code) return code.error();
    exit.exit_code = code.value();
  }
  return exit;
}

std::string encode_port_prefix(std::uint16_t port) {
  return std::string{static_cast<char>(port & 0xff), static_cast<char>(port >> 8)};
}

sdk::Expected<std::string_view, std::string> PortPrefixReader::feed(std::string_view payload) {
  while (prefix_.size() < 2 && !payload.empty()) {
    prefix_.push_back(payload.front());
    payload.remove_prefix(1);
    if (prefix_.size() == 2) {
      const auto low = static_cast<unsigned char>(prefix_[0]);
      const auto high = static_cast<unsigned char>(prefix_[1]);
      const unsigned port = low | (high << 8);
      if (port != expected_port_) {
        return "the server's stream is for port " + std::to_string(port) + ", not " +
               std::to_string(expected_port_);
      }
    }
  }
  return payload;
}

}  // namespace vc::kubernetes
