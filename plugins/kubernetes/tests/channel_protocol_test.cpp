// channel_protocol_test.cpp — the channel subprotocols' wire format: channel bytes in and out,
// v5's close signal, the resize message, exec's Status -> ExecExit, port-forward's port prefix.
// Thread rule: single-threaded tests.
#include "channel_protocol.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace vc::kubernetes {
namespace {

using namespace std::string_literals;

TEST(ChannelMessage, PrefixesThePayloadWithTheChannelByte) {
  EXPECT_EQ(encode_channel_message(kStdinChannel, "foo\n"), "\x00" "foo\n"s);
  EXPECT_EQ(encode_channel_message(4, ""), "\x04"s);
  const std::string binary = "\x00\xff\x01"s;
  EXPECT_EQ(encode_channel_message(2, binary), "\x02\x00\xff\x01"s);
}

TEST(ChannelMessage, DecodesChannelAndPayloadBytesUnchanged) {
  const std::string message = "\x01hello\x00\xff"s;
  const auto decoded = decode_channel_message(message);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->channel, kStdoutChannel);
  EXPECT_EQ(decoded->payload, "hello\x00\xff"s);

  const std::string high = "\xfe"s;
  const auto only_channel = decode_channel_message(high);
  ASSERT_TRUE(only_channel.has_value());
  EXPECT_EQ(only_channel->channel, 254);
  EXPECT_TRUE(only_channel->payload.empty());
}

TEST(ChannelMessage, AnEmptyMessageHasNoChannel) {
  EXPECT_FALSE(decode_channel_message("").has_value());
}

TEST(ChannelMessage, RoundTripsEveryChannel) {
  for (int channel = 0; channel < 256; ++channel) {
    const std::string message = encode_channel_message(static_cast<std::uint8_t>(channel), "x");
    const auto decoded = decode_channel_message(message);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(decoded->channel, channel);
    EXPECT_EQ(decoded->payload, "x");
  }
}

TEST(ChannelProtocolNames, OnlyTheTwoSpokenVersionsAreRecognised) {
  EXPECT_EQ(channel_protocol_named("v5.channel.k8s.io"), ChannelProtocol::v5);
  EXPECT_EQ(channel_protocol_named("v4.channel.k8s.io"), ChannelProtocol::v4);
  EXPECT_FALSE(channel_protocol_named("channel.k8s.io").has_value());
  EXPECT_FALSE(channel_protocol_named("v4.base64.channel.k8s.io").has_value());
  EXPECT_FALSE(channel_protocol_named("").has_value());
  EXPECT_STREQ(channel_protocol_name(ChannelProtocol::v5), "v5.channel.k8s.io");
  EXPECT_STREQ(channel_protocol_name(ChannelProtocol::v4), "v4.channel.k8s.io");
}

TEST(CloseSignal, Is255ThenTheChannel) {
  EXPECT_EQ(encode_close_signal(kStdinChannel), "\xff\x00"s);
  EXPECT_EQ(encode_close_signal(3), "\xff\x03"s);
}

TEST(ResizeMessage, IsJsonWithGoFieldNamesOnChannelFour) {
  const std::string message = encode_resize_message(120, 40);
  const auto decoded = decode_channel_message(message);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->channel, kResizeChannel);
  const auto size = nlohmann::json::parse(decoded->payload);
  EXPECT_EQ(size, (nlohmann::json{{"Width", 120}, {"Height", 40}}));
}

// --- exec's status ---

TEST(ExecStatus, SuccessIsExitCodeZero) {
  const auto exit = parse_exec_status(R"({"metadata":{},"status":"Success"})");
  ASSERT_TRUE(exit.ok()) << exit.error();
  EXPECT_EQ(exit.value().exit_code, 0);
  EXPECT_TRUE(exit.value().reason.empty());
  EXPECT_TRUE(exit.value().message.empty());
}

TEST(ExecStatus, NonZeroExitCodeComesFromTheExitCodeCause) {
  // As the kubelet writes it: the cause's Go field Type is "reason" in JSON.
  const auto exit = parse_exec_status(
      R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: )"
      R"(Error executing in Docker Container: 3","reason":"NonZeroExitCode","details":{"causes":)"
      R"([{"reason":"Other","message":"x"},{"reason":"ExitCode","message":"3"}]}})");
  ASSERT_TRUE(exit.ok()) << exit.error();
  EXPECT_EQ(exit.value().exit_code, 3);
  EXPECT_EQ(exit.value().reason, "NonZeroExitCode");
  EXPECT_EQ(exit.value().message,
            "command terminated with non-zero exit code: Error executing in Docker Container: 3");
}

TEST(ExecStatus, ExitCodesAreZeroTo255) {
  const auto with_code = [](const std::string& code) {
    return parse_exec_status(R"({"status":"Failure","reason":"NonZeroExitCode","details":)"
                             R"({"causes":[{"reason":"ExitCode","message":")" + code + R"("}]}})");
  };
  EXPECT_EQ(with_code("255").value().exit_code, 255);
  EXPECT_EQ(with_code("137").value().exit_code, 137);
  for (const char* bad : {"256", "-1", "abc", "", "3x", " 3"}) {
    const auto exit = with_code(bad);
    ASSERT_FALSE(exit.ok()) << bad;
    EXPECT_NE(exit.error().find("is not a number from 0 to 255"), std::string::npos) << bad;
  }
}

TEST(ExecStatus, NonZeroExitCodeWithoutTheCauseIsAnError) {
  const auto no_details = parse_exec_status(R"({"status":"Failure","reason":"NonZeroExitCode"})");
  ASSERT_FALSE(no_details.ok());
  EXPECT_EQ(no_details.error(), "it reports a non-zero exit code without details");
  const auto no_cause = parse_exec_status(
      R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[]}})");
  ASSERT_FALSE(no_cause.ok());
  EXPECT_EQ(no_cause.error(), "it reports a non-zero exit code but names none");
}

TEST(ExecStatus, AnotherFailureIsAMessageWithoutExitCode) {
  const auto exit = parse_exec_status(
      R"({"status":"Failure","message":"error executing command in container: not found",)"
      R"("reason":"InternalError","code":500})");
  ASSERT_TRUE(exit.ok()) << exit.error();
  EXPECT_FALSE(exit.value().exit_code.has_value());
  EXPECT_EQ(exit.value().reason, "InternalError");
  EXPECT_EQ(exit.value().message, "error executing command in container: not found");
}

TEST(ExecStatus, TheServersMessageIsBounded) {
  const std::string long_message(5000, 'm');
  const auto exit = parse_exec_status(
      R"({"status":"Failure","reason":"InternalError","message":")" + long_message + R"("})");
  ASSERT_TRUE(exit.ok());
  EXPECT_LT(exit.value().message.size(), 400u);
}

TEST(ExecStatus, WhatIsNotAStatusIsAnError) {
  EXPECT_EQ(parse_exec_status("").error(), "it is not a JSON object");
  EXPECT_EQ(parse_exec_status(R"({"status":"Succ)").error(), "it is not a JSON object");
  EXPECT_EQ(parse_exec_status("[1]").error(), "it is not a JSON object");
  EXPECT_EQ(parse_exec_status("command failed").error(), "it is not a JSON object");
  EXPECT_EQ(parse_exec_status(R"({"status":"Pending"})").error(),
            "its status \"Pending\" is neither Success nor Failure");
}

// --- port-forward ---

TEST(PortPrefix, IsTwoBytesLittleEndian) {
  EXPECT_EQ(encode_port_prefix(6080), "\xc0\x17"s);
  EXPECT_EQ(encode_port_prefix(7000), "\x58\x1b"s);
  EXPECT_EQ(encode_port_prefix(1), "\x01\x00"s);
  EXPECT_EQ(encode_port_prefix(65535), "\xff\xff"s);
}

TEST(PortPrefix, TheChannelsOfThePorts) {
  EXPECT_EQ(port_data_channel(0), 0);
  EXPECT_EQ(port_error_channel(0), 1);
  EXPECT_EQ(port_data_channel(2), 4);
  EXPECT_EQ(port_error_channel(2), 5);
}

TEST(PortPrefixReader, TakesThePrefixOffTheFirstMessage) {
  PortPrefixReader reader(6080);
  const std::string first = encode_port_prefix(6080);
  const auto after_prefix = reader.feed(first);
  ASSERT_TRUE(after_prefix.ok());
  EXPECT_TRUE(after_prefix.value().empty());
  EXPECT_TRUE(reader.prefix_complete());
  const std::string data = "\x00RFB 003.008\n\xff"s;
  const auto later = reader.feed(data);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later.value(), data);  // a later message's first bytes are data, not a prefix
}

TEST(PortPrefixReader, APrefixSplitAcrossMessagesOrFollowedByData) {
  PortPrefixReader split(7000);
  const std::string prefix = encode_port_prefix(7000);
  const auto first = split.feed(prefix.substr(0, 1));
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first.value().empty());
  EXPECT_FALSE(split.prefix_complete());
  const std::string rest = prefix.substr(1) + "abc";
  const auto second = split.feed(rest);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second.value(), "abc");

  PortPrefixReader together(7000);
  const std::string both = prefix + "xyz";
  const auto data = together.feed(both);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data.value(), "xyz");
}

TEST(PortPrefixReader, APrefixForAnotherPortIsAnError) {
  PortPrefixReader reader(6080);
  const std::string other = encode_port_prefix(5900);
  const auto result = reader.feed(other);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), "the server's stream is for port 5900, not 6080");
}

}  // namespace
}  // namespace vc::kubernetes
