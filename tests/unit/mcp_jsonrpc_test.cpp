// JSON-RPC framing: parsing, classification and reply shapes.
#include "mcp/jsonrpc.h"

#include <gtest/gtest.h>

namespace vc::mcp::jsonrpc {
namespace {

Message classify_text(const char* text) { return classify(Json::parse(text)); }

TEST(JsonRpc, ParseReportsSyntaxErrors) {
  EXPECT_TRUE(parse(R"({"a": 1})").ok());
  const auto broken = parse("{not json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().status, kParseError);
  EXPECT_EQ(broken.error().message.find("[json.exception"), std::string::npos);
  EXPECT_NE(broken.error().message.find("syntax error"), std::string::npos);
  EXPECT_FALSE(parse("").ok());
  EXPECT_FALSE(parse(std::string(R"({"a": ")") + "\xff" + "\"}").ok());  // invalid UTF-8
}

TEST(JsonRpc, ParseReportsNumbersThatOverflowADouble) {
  // nlohmann throws out_of_range.406 for these, not parse_error: still a -32700, never a throw.
  for (const char* text : {R"({"jsonrpc":"2.0","id":1e999999,"method":"ping"})",
                           R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":-1e400}})"}) {
    const auto parsed = parse(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().status, kParseError) << text;
    EXPECT_NE(parsed.error().message.find("overflow"), std::string::npos)
        << parsed.error().message;
  }
}

TEST(JsonRpc, ParseRefusesAbsurdNesting) {
  const auto nested = [](size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_TRUE(parse(nested(kMaxNestingDepth)).ok());
  const auto too_deep = parse(nested(kMaxNestingDepth + 1));
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.error().message.find("nested deeper"), std::string::npos);
  EXPECT_FALSE(parse(std::string(10'000'000, '[')).ok());
  // Brackets inside strings (escaped quotes included) are text, not nesting.
  const std::string in_string = "{\"a\":\"\\\"" + std::string(1000, '[') + "\"}";
  EXPECT_TRUE(parse(in_string).ok()) << in_string;
}

TEST(JsonRpc, ClassifiesRequestsNotificationsAndResponses) {
  auto request = classify_text(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  EXPECT_EQ(request.kind, MessageKind::request);
  EXPECT_EQ(request.id, 7);
  EXPECT_EQ(request.method, "ping");
  EXPECT_TRUE(request.params.is_null());

  auto string_id = classify_text(R"({"jsonrpc":"2.0","id":"a","method":"x","params":{"k":1}})");
  EXPECT_EQ(string_id.kind, MessageKind::request);
  EXPECT_EQ(string_id.params["k"], 1);

  EXPECT_EQ(classify_text(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").kind,
            MessageKind::notification);
  EXPECT_EQ(classify_text(R"({"jsonrpc":"2.0","id":1,"result":{}})").kind, MessageKind::response);
  EXPECT_EQ(classify_text(R"({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}})").kind,
            MessageKind::response);
}

TEST(JsonRpc, RejectsInvalidMessages) {
  auto batch = classify_text(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(batch.kind, MessageKind::invalid);
  EXPECT_TRUE(batch.id.is_null());
  EXPECT_NE(batch.problem.find("batch"), std::string::npos);

  EXPECT_EQ(classify_text("42").kind, MessageKind::invalid);
  EXPECT_EQ(classify_text(R"("text")").kind, MessageKind::invalid);

  auto wrong_version = classify_text(R"({"jsonrpc":"1.0","id":3,"method":"ping"})");
  EXPECT_EQ(wrong_version.kind, MessageKind::invalid);
  EXPECT_EQ(wrong_version.id, 3);  // readable ids are echoed in the error
  EXPECT_EQ(classify_text(R"({"id":3,"method":"ping"})").kind, MessageKind::invalid);

  for (const char* bad_id : {"null", "true", "1.5", "{}", "[]"}) {
    auto message = classify_text(
        (std::string(R"({"jsonrpc":"2.0","method":"ping","id":)") + bad_id + "}").c_str());
    EXPECT_EQ(message.kind, MessageKind::invalid) << bad_id;
    EXPECT_TRUE(message.id.is_null()) << bad_id;
  }
  EXPECT_EQ(classify_text(R"({"jsonrpc":"2.0","id":1,"method":5})").kind, MessageKind::invalid);
  EXPECT_EQ(classify_text(R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})").kind,
            MessageKind::invalid);
  EXPECT_EQ(classify_text(R"({"jsonrpc":"2.0","id":1})").kind, MessageKind::invalid);
  EXPECT_EQ(classify_text(R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})").kind,
            MessageKind::invalid);
}

TEST(JsonRpc, IdTypes) {
  EXPECT_TRUE(is_valid_id("x"));
  EXPECT_TRUE(is_valid_id(-3));
  EXPECT_TRUE(is_valid_id(2.0));
  EXPECT_FALSE(is_valid_id(2.5));
  EXPECT_FALSE(is_valid_id(nullptr));
  EXPECT_FALSE(is_valid_id(true));
}

TEST(JsonRpc, BuildsReplies) {
  EXPECT_EQ(serialize(make_result(1, Json::object())), R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_EQ(serialize(make_error(nullptr, kParseError, "Parse error")),
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
  EXPECT_EQ(serialize(make_notification("notifications/progress", Json{{"progress", 1}})),
            R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})");
}

TEST(JsonRpc, SerializeIsOneLineAndSurvivesInvalidUtf8) {
  const std::string line = serialize(Json{{"text", std::string("a\nb\xff")}});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line, "{\"text\":\"a\\nb\xef\xbf\xbd\"}");
}

}  // namespace
}  // namespace vc::mcp::jsonrpc
