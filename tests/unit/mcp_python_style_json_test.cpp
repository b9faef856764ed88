// Python json.dumps compatibility of the text content of tool results.
#include "mcp/python_style_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace vc::mcp {
namespace {

TEST(PythonStyleJson, UsesPythonSeparatorsAndKeepsKeyOrder) {
  Json payload;
  payload["z"] = 1;
  payload["a"] = Json::array({1, 2, "x"});
  payload["m"] = Json{{"k", nullptr}, {"t", true}, {"f", false}};
  EXPECT_EQ(dump_python_style(payload),
            R"({"z": 1, "a": [1, 2, "x"], "m": {"k": null, "t": true, "f": false}})");
}

TEST(PythonStyleJson, EmptyContainers) {
  EXPECT_EQ(dump_python_style(Json::object()), "{}");
  EXPECT_EQ(dump_python_style(Json::array()), "[]");
  EXPECT_EQ(dump_python_style(Json{{"a", Json::array()}}), R"({"a": []})");
}

TEST(PythonStyleJson, EscapesLikeEnsureAscii) {
  EXPECT_EQ(dump_python_style("quote\" backslash\\ slash/"), R"("quote\" backslash\\ slash/")");
  EXPECT_EQ(dump_python_style("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(dump_python_style(std::string("\x01\x1f\x7f", 3)), R"("\u0001\u001f\u007f")");
  EXPECT_EQ(dump_python_style(std::string("nul\0x", 5)), R"("nul\u0000x")");
  EXPECT_EQ(dump_python_style("caf\xc3\xa9"), R"("caf\u00e9")");
  EXPECT_EQ(dump_python_style("\xe2\x82\xac"), R"("\u20ac")");  // euro sign
}

TEST(PythonStyleJson, NonBmpCharactersBecomeSurrogatePairs) {
  EXPECT_EQ(dump_python_style("\xf0\x9f\x98\x80"), R"("\ud83d\ude00")");  // U+1F600
  EXPECT_EQ(dump_python_style("\xf4\x8f\xbf\xbf"), R"("\udbff\udfff")");  // U+10FFFF
}

TEST(PythonStyleJson, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(dump_python_style(std::string("a\xff" "b")), R"("a\ufffdb")");
  EXPECT_EQ(dump_python_style(std::string("\xc3")), R"("\ufffd")");           // truncated
  EXPECT_EQ(dump_python_style(std::string("\xc0\xaf")), R"("\ufffd\ufffd")");  // overlong
  EXPECT_EQ(dump_python_style(std::string("\xed\xa0\x80")), R"("\ufffd\ufffd\ufffd")");  // surrogate
  // One replacement for the valid prefix of a broken sequence, as Python's decoder does.
  EXPECT_EQ(dump_python_style(std::string("\xe2\x82" "a")), R"("\ufffda")");
  EXPECT_EQ(dump_python_style(std::string("\xf0\x9f\x98")), R"("\ufffd")");
}

TEST(PythonStyleJson, KeysAreEscapedToo) {
  EXPECT_EQ(dump_python_style(Json{{"\xc3\xa9", 1}}), R"({"\u00e9": 1})");
}

TEST(PythonStyleJson, NumbersMatchPythonRepr) {
  EXPECT_EQ(dump_python_style(Json(0)), "0");
  EXPECT_EQ(dump_python_style(Json(-42)), "-42");
  EXPECT_EQ(dump_python_style(Json(std::numeric_limits<uint64_t>::max())), "18446744073709551615");
  EXPECT_EQ(dump_python_style(Json(1.0)), "1.0");
  EXPECT_EQ(dump_python_style(Json(1.5)), "1.5");
  EXPECT_EQ(dump_python_style(Json(0.1)), "0.1");
  EXPECT_EQ(dump_python_style(Json(0.0001)), "0.0001");
  EXPECT_EQ(dump_python_style(Json(0.00001)), "1e-05");
  EXPECT_EQ(dump_python_style(Json(1e15)), "1000000000000000.0");
  EXPECT_EQ(dump_python_style(Json(1234567890123456.0)), "1234567890123456.0");
  EXPECT_EQ(dump_python_style(Json(9.99e15)), "9990000000000000.0");
  EXPECT_EQ(dump_python_style(Json(-2.5e15)), "-2500000000000000.0");
  EXPECT_EQ(dump_python_style(Json(1e16)), "1e+16");
  EXPECT_EQ(dump_python_style(Json(1e100)), "1e+100");
  EXPECT_EQ(dump_python_style(Json(std::nan(""))), "NaN");
  EXPECT_EQ(dump_python_style(Json(std::numeric_limits<double>::infinity())), "Infinity");
  EXPECT_EQ(dump_python_style(Json(-std::numeric_limits<double>::infinity())), "-Infinity");
}

TEST(PythonStyleJson, TerminalExecutePayloadShape) {
  Json payload;
  payload["computer_id"] = "virtual-computer";
  payload["operation"] = "terminal_execute";
  payload["desktop_url"] = nullptr;
  payload["stdout"] = "hi\n";
  payload["exit_code"] = 0;
  EXPECT_EQ(dump_python_style(payload),
            R"({"computer_id": "virtual-computer", "operation": "terminal_execute", )"
            R"("desktop_url": null, "stdout": "hi\n", "exit_code": 0})");
}

}  // namespace
}  // namespace vc::mcp
