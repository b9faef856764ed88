// server_fatal_signal_test.cpp — the line a crash outside any plugin leaves, and that the
// process still ends by the signal afterwards (death tests: each case runs in a child process).
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "server/fatal_signal.h"

namespace vc::server {
namespace {

int* volatile g_nowhere = nullptr;

// The sanitizers would report the null write themselves; the point is the signal.
__attribute__((no_sanitize("address", "undefined"), noinline)) void write_through_null() {
  *g_nowhere = 1;
}

// Killed by the signal, or — in a sanitizer build, whose handler ours puts back — exited with
// the sanitizer's failure code after its report.
bool ended_by_the_crash(int status) {
  return (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
         (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

TEST(FatalSignalDeathTest, ACrashInTheServersOwnCodeSaysSo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_fatal_signal_report();
        write_through_null();
      },
      ended_by_the_crash,
      "mcp-virtual-computer: fatal signal SIGSEGV in the server itself; the server stops\\. "
      "The computer and its files are not affected\\.");
}

TEST(FatalSignalDeathTest, AbortNamesNoCulpritAndStillEndsByTheSignal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_fatal_signal_report();
        std::abort();
      },
      ::testing::KilledBySignal(SIGABRT),
      "mcp-virtual-computer: fatal signal SIGABRT; the server stops\\. The computer and its "
      "files are not affected\\.");
}

}  // namespace
}  // namespace vc::server
