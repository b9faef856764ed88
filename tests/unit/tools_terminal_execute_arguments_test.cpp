// Tests of terminal_execute's sanitisation and validation (docs/compatibility.md, "Argument
// checks"), in the original's
// order and with its messages.
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "tools/terminal_execute_arguments.h"

namespace vc::tools {
namespace {

constexpr int64_t kDefaultTimeout = 120;
constexpr uint64_t kOutputLimit = 4096;

Expected<computers::ExecRequest> read(const Json& arguments) {
  return read_terminal_execute_arguments(arguments, kDefaultTimeout, kOutputLimit);
}

std::string problem(const Json& arguments) {
  auto request = read(arguments);
  return request.ok() ? "(accepted)" : request.error().message;
}

// `bytes` bytes of UTF-8 text made mostly of 3-byte characters, so a count of characters
// instead of bytes would be caught.
std::string utf8_text_of_size(size_t bytes) {
  std::string text;
  while (text.size() + 3 <= bytes) text += "\xE2\x82\xAC";  // €
  text.append(bytes - text.size(), 'x');
  return text;
}

const char* const kBoth =
    "Cannot provide both 'command' and 'args'. Use 'command' for shell commands or 'args' for "
    "direct execution.";

TEST(TerminalExecuteArgumentsTest, ACommandRunsThroughTheShellWithDefaults) {
  auto request = read(Json{{"command", "echo hi"}});
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request.value().command, "echo hi");
  EXPECT_TRUE(request.value().args.empty());
  EXPECT_EQ(request.value().stdin_data, "");
  EXPECT_FALSE(request.value().working_directory.has_value());
  EXPECT_EQ(request.value().timeout_s, kDefaultTimeout);
  EXPECT_EQ(request.value().output_limit, kOutputLimit);
}

TEST(TerminalExecuteArgumentsTest, ArgsStdinDirectoryAndTimeoutPassThrough) {
  auto request = read(Json{{"args", {"printf", "%s", "a b"}},
                           {"stdin", "line\n\ttab"},
                           {"working_directory", "/tmp"},
                           {"timeout", 5}});
  ASSERT_TRUE(request.ok());
  EXPECT_FALSE(request.value().command.has_value());
  EXPECT_EQ(request.value().args, (std::vector<std::string>{"printf", "%s", "a b"}));
  EXPECT_EQ(request.value().stdin_data, "line\n\ttab");
  EXPECT_EQ(request.value().working_directory, "/tmp");
  EXPECT_EQ(request.value().timeout_s, 5);
}

TEST(TerminalExecuteArgumentsTest, BothCommandAndArgsAreRefused) {
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"args", {"ls"}}}), kBoth);
}

TEST(TerminalExecuteArgumentsTest, NeitherCommandNorArgsIsRefused) {
  EXPECT_EQ(problem(Json::object()), "Must provide either 'command' or 'args'.");
  EXPECT_EQ(problem(Json{{"stdin", "x"}}), "Must provide either 'command' or 'args'.");
}

TEST(TerminalExecuteArgumentsTest, EmptyValuesCountAsAbsent) {
  EXPECT_EQ(problem(Json{{"command", ""}, {"args", Json::array()}}),
            "Must provide either 'command' or 'args'.");

  auto args_mode = read(Json{{"command", ""}, {"args", {"true"}}});
  ASSERT_TRUE(args_mode.ok());
  EXPECT_FALSE(args_mode.value().command.has_value());

  auto command_mode = read(
      Json{{"command", "true"}, {"args", Json::array()}, {"working_directory", ""}, {"stdin", ""}});
  ASSERT_TRUE(command_mode.ok());
  EXPECT_FALSE(command_mode.value().working_directory.has_value());
  EXPECT_EQ(command_mode.value().stdin_data, "");
}

TEST(TerminalExecuteArgumentsTest, NullsCountAsAbsent) {
  auto request = read(Json{{"command", "true"}, {"args", nullptr}, {"timeout", nullptr}});
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request.value().timeout_s, kDefaultTimeout);
}

TEST(TerminalExecuteArgumentsTest, ARelativeWorkingDirectoryIsRefused) {
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"working_directory", "relative/path"}}),
            "working_directory must be an absolute path, got: relative/path");
}

TEST(TerminalExecuteArgumentsTest, TimeoutsBelowOneSecondAreRefused) {
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"timeout", 0}}), "timeout must be at least 1 second.");
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"timeout", -5}}),
            "timeout must be at least 1 second.");
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"timeout", 1}}), "(accepted)");
}

TEST(TerminalExecuteArgumentsTest, TimeoutsHaveNoMaximumAndMayBeWholeFloats) {
  auto huge = read(Json{{"command", "ls"}, {"timeout", 18446744073709551615ULL}});
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ(huge.value().timeout_s, std::numeric_limits<int64_t>::max());
  auto whole_float = read(Json{{"command", "ls"}, {"timeout", 7.0}});
  ASSERT_TRUE(whole_float.ok());
  EXPECT_EQ(whole_float.value().timeout_s, 7);
  auto huge_float = read(Json{{"command", "ls"}, {"timeout", 1e30}});
  ASSERT_TRUE(huge_float.ok());
  EXPECT_EQ(huge_float.value().timeout_s, std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(read(Json{{"command", "ls"}, {"timeout", 1.5}}).ok());
}

TEST(TerminalExecuteArgumentsTest, StdinOfExactlyTwoMebibytesIsAccepted) {
  auto request = read(Json{{"command", "cat"}, {"stdin", utf8_text_of_size(kStdinLimitBytes)}});
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request.value().stdin_data.size(), 2097152U);
}

TEST(TerminalExecuteArgumentsTest, StdinOneByteOverTwoMebibytesIsRefused) {
  EXPECT_EQ(problem(Json{{"command", "cat"}, {"stdin", utf8_text_of_size(kStdinLimitBytes + 1)}}),
            "stdin content exceeds the 2 MiB limit (2097153 bytes). Split into smaller chunks or "
            "use a different approach.");
}

TEST(TerminalExecuteArgumentsTest, TheFirstProblemInTheOriginalOrderWins) {
  const std::string big_stdin = utf8_text_of_size(kStdinLimitBytes + 1);
  EXPECT_EQ(problem(Json{{"command", "ls"},
                         {"args", {"ls"}},
                         {"working_directory", "rel"},
                         {"timeout", 0},
                         {"stdin", big_stdin}}),
            kBoth);
  EXPECT_EQ(problem(Json{{"working_directory", "rel"}, {"timeout", 0}}),
            "Must provide either 'command' or 'args'.");
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"working_directory", "rel"}, {"timeout", 0}}),
            "working_directory must be an absolute path, got: rel");
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"timeout", 0}, {"stdin", big_stdin}}),
            "timeout must be at least 1 second.");
}

TEST(TerminalExecuteArgumentsTest, WrongTypesAreRefusedWithoutThrowing) {
  EXPECT_EQ(problem(Json{{"command", 5}}), "command must be a string.");
  EXPECT_EQ(problem(Json{{"args", {"ls", 1}}}), "args must be an array of strings.");
  EXPECT_EQ(problem(Json{{"command", "ls"}, {"timeout", "10"}}), "timeout must be an integer.");
}

}  // namespace
}  // namespace vc::tools
