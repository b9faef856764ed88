// process_supervisor_test.cpp — `vc-exec-agent process-call` and the supervisor it starts,
// driven as real processes on this machine (docs/processes.md): each test points
// VC_PROCESS_STATE_DIR at a folder of its own, so each gets a supervisor of its own, ended
// with the test. No container is needed: the supervisor runs its processes here, as it does
// inside a computer.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef VC_EXEC_AGENT_BINARY
#error "VC_EXEC_AGENT_BINARY must name the vc-exec-agent binary under test"
#endif

extern char** environ;

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct CallResult {
  int exit_status = -1;
  json answer;
  std::string raw;
};

// One `vc-exec-agent process-call` with `request` on its stdin.
CallResult call_raw(const std::string& request) {
  int input[2], output[2];
  if (pipe2(input, O_CLOEXEC) != 0 || pipe2(output, O_CLOEXEC) != 0) std::abort();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input[0], 0);
  posix_spawn_file_actions_adddup2(&actions, output[1], 1);
  char program[] = VC_EXEC_AGENT_BINARY;
  char mode[] = "process-call";
  char* argv[] = {program, mode, nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, program, &actions, nullptr, argv, environ) != 0) std::abort();
  posix_spawn_file_actions_destroy(&actions);
  close(input[0]);
  close(output[1]);
  std::thread writer([fd = input[1], &request] {
    std::string_view left = request;
    while (!left.empty()) {
      const ssize_t wrote = write(fd, left.data(), left.size());
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) break;
      left.remove_prefix(static_cast<std::size_t>(wrote));
    }
    close(fd);
  });
  CallResult result;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = read(output[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    result.raw.append(buffer, static_cast<std::size_t>(got));
  }
  close(output[0]);
  writer.join();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.answer = json::parse(result.raw, nullptr, /*allow_exceptions=*/false);
  return result;
}

CallResult call(json request) {
  if (!request.contains("protocol")) request["protocol"] = 1;
  return call_raw(request.dump());
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// Fields of /proc/<pid>/stat after the name: [0] is the state, [2] the process group.
std::vector<std::string> stat_fields(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto name_end = stat.rfind(')');
  std::vector<std::string> fields;
  if (name_end == std::string::npos) return fields;
  std::istringstream words(stat.substr(name_end + 1));
  for (std::string word; words >> word;) fields.push_back(word);
  return fields;
}

// Every live (not zombie) process in process group `pgid`, from /proc.
std::vector<pid_t> members_of_group(pid_t pgid) {
  std::vector<pid_t> members;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return members;
  while (const dirent* entry = readdir(proc)) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    const auto fields = stat_fields(pid);
    if (fields.size() > 2 && fields[0] != "Z" && std::atoi(fields[2].c_str()) == pgid) {
      members.push_back(pid);
    }
  }
  closedir(proc);
  return members;
}

// The supervisor of `state_dir`, found by its command line.
std::optional<pid_t> supervisor_pid(const std::string& state_dir) {
  const std::string wanted = std::string("process-supervisor") + '\0' + state_dir + '\0';
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return std::nullopt;
  std::optional<pid_t> found;
  while (const dirent* entry = readdir(proc)) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    const std::string command_line = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    const auto fields = stat_fields(pid);
    if (command_line.find(wanted) != std::string::npos && !fields.empty() && fields[0] != "Z") {
      found = pid;
    }
  }
  closedir(proc);
  return found;
}

bool alive(pid_t pid) {
  const auto fields = stat_fields(pid);
  return !fields.empty() && fields[0] != "Z";
}

long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    long kib = 0;
    if (std::sscanf(line.c_str(), "VmRSS: %ld kB", &kib) == 1) return kib;
  }
  return -1;
}

// Waits for `done`, looking every 20 ms, at most `bound` (a bound, not a timing assertion:
// the assertion after it says what should have happened).
template <typename Done>
bool eventually(Done done, Clock::duration bound = 10s) {
  const auto give_up = Clock::now() + bound;
  while (!done()) {
    if (Clock::now() >= give_up) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

class ProcessSupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);
    char pattern[] = "/tmp/vc-process-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    state_dir_ = root_ + "/state";
    setenv("VC_PROCESS_STATE_DIR", state_dir_.c_str(), 1);
  }

  void TearDown() override {
    // Nothing of a test outlives it: its processes' groups, then its supervisor.
    const CallResult listed = call({{"op", "list"}});
    if (listed.exit_status == 0) {
      for (const auto& process : listed.answer.at("processes")) {
        if (process.at("state") == "running") kill(-process.at("pid").get<pid_t>(), SIGKILL);
      }
    }
    if (const auto pid = supervisor_pid(state_dir_)) kill(*pid, SIGKILL);
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  json start(json request) {
    request["op"] = "start";
    const CallResult result = call(request);
    EXPECT_EQ(result.exit_status, 0) << result.raw;
    return result.answer;
  }
  json read(const std::string& id, int wait_ms = 2000, json extra = json::object()) {
    extra["op"] = "read";
    extra["process_id"] = id;
    extra["wait_ms"] = wait_ms;
    const CallResult result = call(extra);
    EXPECT_EQ(result.exit_status, 0) << result.raw;
    return result.answer;
  }
  json write(const std::string& id, const std::string& input, json extra = json::object()) {
    extra["op"] = "write";
    extra["process_id"] = id;
    extra["input"] = input;
    if (!extra.contains("wait_ms")) extra["wait_ms"] = 2000;
    const CallResult result = call(extra);
    EXPECT_EQ(result.exit_status, 0) << result.raw;
    return result.answer;
  }
  // Reads until `stdout` holds `wanted` or the process ended; everything read.
  std::string read_until(const std::string& id, const std::string& wanted) {
    std::string text;
    eventually([&] {
      const json answer = read(id, 1000);
      text += answer.at("output").at("stdout").get<std::string>();
      return text.find(wanted) != std::string::npos ||
             answer.at("process").at("state") != "running";
    });
    return text;
  }
  json wait_for_end(const std::string& id) {
    json answer;
    eventually([&] {
      answer = read(id, 2000);
      return answer.at("process").at("state") != "running";
    }, 30s);
    return answer;
  }
  void expect_error(const CallResult& result, const std::string& code, const std::string& text) {
    EXPECT_EQ(result.exit_status, 1) << result.raw;
    ASSERT_TRUE(result.answer.is_object()) << result.raw;
    EXPECT_EQ(result.answer.at("error").at("code"), code) << result.raw;
    EXPECT_NE(result.answer.at("error").at("message").get<std::string>().find(text),
              std::string::npos)
        << result.raw;
  }

  std::string root_;
  std::string state_dir_;
};

// --- background processes ---

TEST_F(ProcessSupervisorTest, ABackgroundLoopRunsOnAndItsOutputIsReadLater) {
  const json started =
      start({{"argv", {"sh", "-c", "i=0; while :; do echo tick $i; i=$((i+1)); sleep 0.05; done"}},
             {"command", "the ticker"},
             {"cwd", root_},
             {"wait_ms", 0}});
  const json& process = started.at("process");
  EXPECT_EQ(process.at("process_id"), "p1");
  EXPECT_EQ(process.at("state"), "running");
  EXPECT_EQ(process.at("command"), "the ticker");
  EXPECT_EQ(process.at("working_directory"), root_);
  EXPECT_EQ(process.at("pty"), false);
  EXPECT_TRUE(process.at("exit_code").is_null());
  EXPECT_TRUE(process.at("ended").is_null());
  EXPECT_GT(process.at("pid").get<int>(), 0);
  EXPECT_EQ(process.at("log_paths").at("stdout"), state_dir_ + "/p1/stdout.log");

  const std::string first = read_until("p1", "tick 0\n");
  EXPECT_EQ(first.rfind("tick 0\n", 0), 0u) << first;
  const json later = read("p1", 2000);
  const std::string more = later.at("output").at("stdout");
  EXPECT_EQ(more.rfind("tick ", 0), 0u) << more;  // goes on where the last read ended
  EXPECT_EQ(more.find("tick 0\n"), std::string::npos);
  EXPECT_EQ(later.at("output").at("stdout_offset").get<std::size_t>(), first.size() + more.size());
  EXPECT_EQ(later.at("process").at("state"), "running");

  const CallResult listed = call({{"op", "list"}});
  ASSERT_EQ(listed.exit_status, 0) << listed.raw;
  ASSERT_EQ(listed.answer.at("processes").size(), 1u);
  EXPECT_EQ(listed.answer.at("processes")[0].at("process_id"), "p1");
  EXPECT_EQ(read_file(state_dir_ + "/p1/stdout.log").rfind(first + more, 0), 0u);

  struct stat info {};
  ASSERT_EQ(stat(state_dir_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

TEST_F(ProcessSupervisorTest, AProcessThatEndsWithinTheWaitAnswersWithAllItsOutput) {
  const json started = start({{"argv", {"sh", "-c", "echo out; echo err >&2; exit 3"}},
                              {"wait_ms", 30000}});
  EXPECT_EQ(started.at("process").at("state"), "exited");
  EXPECT_EQ(started.at("process").at("exit_code"), 3);
  EXPECT_TRUE(started.at("process").at("signal").is_null());
  EXPECT_TRUE(started.at("process").at("ended").is_string());
  EXPECT_EQ(started.at("output").at("stdout"), "out\n");
  EXPECT_EQ(started.at("output").at("stderr"), "err\n");
  EXPECT_EQ(started.at("output").at("more"), false);
}

TEST_F(ProcessSupervisorTest, AMissingProgramIs127WithTheShellsMessage) {
  const json started = start({{"argv", {"no-such-program-here"}}, {"wait_ms", 30000}});
  EXPECT_EQ(started.at("process").at("exit_code"), 127);
  EXPECT_EQ(started.at("output").at("stderr"), "no-such-program-here: No such file or directory\n");
}

// --- interactive processes ---

TEST_F(ProcessSupervisorTest, CatAnswersEachLineWrittenToIt) {
  start({{"argv", {"cat"}}, {"wait_ms", 0}});
  EXPECT_EQ(write("p1", "one\n").at("output").at("stdout"), "one\n");
  EXPECT_EQ(write("p1", "two\n").at("output").at("stdout"), "two\n");
  const json closed = write("p1", "three\n", {{"close_stdin", true}, {"wait_ms", 30000}});
  std::string rest = closed.at("output").at("stdout");
  json last = closed;
  if (last.at("process").at("state") == "running") {
    last = wait_for_end("p1");
    rest += last.at("output").at("stdout").get<std::string>();
  }
  EXPECT_EQ(rest, "three\n");
  EXPECT_EQ(last.at("process").at("exit_code"), 0);

  // Its stdin is closed, and then it ended: both refuse more input, saying so.
  expect_error(call({{"op", "write"}, {"process_id", "p1"}, {"input", "four\n"}}), "stdin_closed",
               "has ended");
}

TEST_F(ProcessSupervisorTest, WritingToAClosedStdinIsRefused) {
  start({{"argv", {"sleep", "30"}}, {"wait_ms", 0}});
  write("p1", "", {{"close_stdin", true}, {"wait_ms", 0}});
  expect_error(call({{"op", "write"}, {"process_id", "p1"}, {"input", "x"}}), "stdin_closed",
               "stdin of process p1 is closed");
}

TEST_F(ProcessSupervisorTest, PythonReadsAndAnswersLineByLine) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  start({{"argv",
          {"/usr/bin/python3", "-c",
           "import sys\nfor line in sys.stdin:\n    print(line.strip().upper(), flush=True)\n"}},
         {"wait_ms", 0}});
  for (const std::string word : {"alpha", "beta", "gamma"}) {
    std::string answer = write("p1", word + "\n", {{"wait_ms", 10000}}).at("output").at("stdout");
    if (answer.empty()) answer = read_until("p1", "\n");
    std::string upper = word;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(answer, upper + "\n");
  }
}

TEST_F(ProcessSupervisorTest, APtyIsATerminalOfTheSizeAsked) {
  const json started =
      start({{"argv", {"sh", "-c", "test -t 0 && test -t 1 && test -t 2 && echo tty; stty size; "
                                   "echo $TERM; echo to-stderr >&2"}},
             {"pty", true},
             {"rows", 30},
             {"cols", 100},
             {"wait_ms", 30000}});
  EXPECT_EQ(started.at("process").at("state"), "exited");
  EXPECT_EQ(started.at("process").at("pty"), true);
  EXPECT_EQ(started.at("process").at("log_paths"),
            json({{"output", state_dir_ + "/p1/output.log"}}));
  EXPECT_EQ(started.at("output").at("stdout"), "tty\r\n30 100\r\nxterm-256color\r\nto-stderr\r\n");
  EXPECT_EQ(started.at("output").at("stderr"), "");
  expect_error(call({{"op", "write"}, {"process_id", "p1"}, {"input", ""}, {"close_stdin", true}}),
               "invalid_argument", "\\u0004");
}

TEST_F(ProcessSupervisorTest, CtrlCInAPtyEndsASleep) {
  start({{"argv", {"sleep", "60"}}, {"pty", true}, {"wait_ms", 200}});
  write("p1", "\u0003", {{"wait_ms", 0}});
  const json ended = wait_for_end("p1");
  EXPECT_EQ(ended.at("process").at("state"), "exited");
  EXPECT_EQ(ended.at("process").at("exit_code"), 128 + SIGINT);
  EXPECT_EQ(ended.at("process").at("signal"), "INT");
}

// --- ending processes ---

TEST_F(ProcessSupervisorTest, KillLeavesNothingOfTheProcessGroup) {
  // The shell and its children ignore TERM: only the KILL that follows 2 s later ends them.
  const json started = start({{"argv", {"sh", "-c", "trap '' TERM; sleep 60 & sleep 60 & wait"}},
                              {"wait_ms", 300}});
  const pid_t group = started.at("process").at("pid");
  ASSERT_GE(members_of_group(group).size(), 3u);
  const CallResult killed = call({{"op", "kill"}, {"process_id", "p1"}, {"signal", "TERM"}});
  ASSERT_EQ(killed.exit_status, 0) << killed.raw;
  EXPECT_EQ(killed.answer.at("process").at("state"), "exited");
  EXPECT_EQ(killed.answer.at("process").at("signal"), "KILL");
  EXPECT_EQ(killed.answer.at("process").at("exit_code"), 128 + SIGKILL);
  EXPECT_TRUE(members_of_group(group).empty());
}

TEST_F(ProcessSupervisorTest, KillSendsTheSignalAskedFor) {
  start({{"argv", {"sleep", "60"}}, {"wait_ms", 0}});
  const CallResult killed = call({{"op", "kill"}, {"process_id", "p1"}, {"signal", "INT"}});
  ASSERT_EQ(killed.exit_status, 0) << killed.raw;
  EXPECT_EQ(killed.answer.at("process").at("signal"), "INT");
  EXPECT_EQ(killed.answer.at("process").at("exit_code"), 128 + SIGINT);
  expect_error(call({{"op", "kill"}, {"process_id", "p1"}, {"signal", "BOGUS"}}),
               "invalid_argument", "\"signal\"");
}

// --- output ---

TEST_F(ProcessSupervisorTest, AFloodKeepsMemoryBoundedAndItsTailReadable) {
  constexpr std::size_t kFlood = 50u << 20;
  start({{"argv", {"sh", "-c", "yes 0123456789abcdef | head -c " + std::to_string(kFlood)}},
         {"wait_ms", 0}});
  const auto supervisor = supervisor_pid(state_dir_);
  ASSERT_TRUE(supervisor.has_value());
  long largest_kib = 0;
  json process;
  // `list` reads nothing, so the ring overflows as it would with nobody reading.
  eventually([&] {
    largest_kib = std::max(largest_kib, resident_kib(*supervisor));
    process = call({{"op", "list"}}).answer.at("processes").at(0);
    return process.at("state") != "running";
  }, 60s);
  largest_kib = std::max(largest_kib, resident_kib(*supervisor));
  ASSERT_EQ(process.at("state"), "exited");
  EXPECT_LT(largest_kib, 64 * 1024);
  EXPECT_EQ(std::filesystem::file_size(state_dir_ + "/p1/stdout.log"), kFlood);

  const json tail = read("p1", 0, {{"max_bytes", 1 << 20}});
  const json& output = tail.at("output");
  EXPECT_EQ(output.at("stdout_dropped").get<std::size_t>(), kFlood - (256u << 10));
  EXPECT_EQ(output.at("stdout_offset").get<std::size_t>(), kFlood);
  const std::string text = output.at("stdout");
  EXPECT_EQ(text.size(), 256u << 10);
  const std::string line = "0123456789abcdef\n";
  std::string expected;
  for (std::size_t at = kFlood - text.size(); at < kFlood; ++at) expected += line[at % line.size()];
  EXPECT_TRUE(text == expected) << "the tail is not the stream's last bytes";
  EXPECT_EQ(output.at("more"), false);
  // Counted once: the next read has nothing dropped and nothing new.
  const json again = read("p1", 0);
  EXPECT_EQ(again.at("output").at("stdout_dropped"), 0);
  EXPECT_EQ(again.at("output").at("stdout"), "");
}

TEST_F(ProcessSupervisorTest, TextIsCutAtCharactersAndInvalidBytesAreReplaced) {
  // Four euro signs (3 bytes each), then an invalid byte.
  start({{"argv", {"printf", "\\342\\202\\254\\342\\202\\254\\342\\202\\254\\342\\202\\254\\377"}},
         {"wait_ms", 30000}, {"max_bytes", 8}});
  // 8 bytes would split the third sign: it waits for the next read, whole.
  const json first = read("p1", 0, {{"max_bytes", 8}, {"from", {{"stdout", 0}, {"stderr", 0}}}});
  EXPECT_EQ(first.at("output").at("stdout"), "\u20ac\u20ac");
  EXPECT_EQ(first.at("output").at("stdout_offset"), 6);
  EXPECT_EQ(first.at("output").at("more"), true);
  const json rest = read("p1", 0, {{"from", {{"stdout", 6}, {"stderr", 0}}}});
  EXPECT_EQ(rest.at("output").at("stdout"), "\u20ac\u20ac\ufffd");
  EXPECT_EQ(rest.at("output").at("stdout_offset"), 13);
}

TEST_F(ProcessSupervisorTest, FromReadsLeaveTheSharedCursorWhereItIs) {
  start({{"argv", {"sh", "-c", "echo hello; sleep 30"}}, {"wait_ms", 0}});
  read_until("p1", "hello\n");  // the shared cursor is past it now
  const json again = read("p1", 0, {{"from", {{"stdout", 0}, {"stderr", 0}}}});
  EXPECT_EQ(again.at("output").at("stdout"), "hello\n");
  const json shared = read("p1", 0);
  EXPECT_EQ(shared.at("output").at("stdout"), "");
  EXPECT_EQ(shared.at("output").at("stdout_offset"), 6);
}

// --- the supervisor's life ---

TEST_F(ProcessSupervisorTest, ANewSupervisorReportsTheRunningProcessesOfTheLastOneAsLost) {
  const json sleeper = start({{"argv", {"sleep", "60"}}, {"wait_ms", 0}});
  start({{"argv", {"true"}}, {"wait_ms", 30000}});
  const pid_t sleeper_pid = sleeper.at("process").at("pid");
  const auto first = supervisor_pid(state_dir_);
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(kill(*first, SIGKILL), 0);
  ASSERT_TRUE(eventually([&] { return !alive(*first); }));

  const CallResult listed = call({{"op", "list"}});
  ASSERT_EQ(listed.exit_status, 0) << listed.raw;
  const auto second = supervisor_pid(state_dir_);
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(*second, *first);
  const json& processes = listed.answer.at("processes");
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0].at("process_id"), "p1");
  EXPECT_EQ(processes[0].at("state"), "lost");
  EXPECT_TRUE(processes[0].at("exit_code").is_null());
  EXPECT_TRUE(processes[0].at("ended").is_null());
  EXPECT_EQ(processes[0].at("note"), "ended when the computer restarted; its exit status is unknown");
  EXPECT_EQ(processes[1].at("state"), "exited");
  EXPECT_EQ(processes[1].at("exit_code"), 0);
  // Nothing can manage the orphan any more: the new supervisor ended it.
  EXPECT_TRUE(eventually([&] { return !alive(sleeper_pid); }));
  // Ids are never reused.
  EXPECT_EQ(start({{"argv", {"true"}}, {"wait_ms", 0}}).at("process").at("process_id"), "p3");
}

TEST_F(ProcessSupervisorTest, ARequestHeldForOutputDoesNotHoldUpOthers) {
  start({{"argv", {"sleep", "30"}}, {"wait_ms", 0}});
  std::thread held([&] { read("p1", 3000); });
  // While that read waits, the supervisor answers others.
  const CallResult listed = call({{"op", "list"}});
  EXPECT_EQ(listed.exit_status, 0);
  held.join();
}

TEST_F(ProcessSupervisorTest, AMalformedMessageDropsOnlyThatClient) {
  ASSERT_EQ(call({{"op", "list"}}).exit_status, 0);  // the supervisor runs
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = state_dir_ + "/supervisor.sock";
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  const char oversized[] = "\xff\xff\xff\xff{}";
  ASSERT_EQ(::write(fd, oversized, sizeof oversized - 1), static_cast<ssize_t>(sizeof oversized - 1));
  char byte = 0;
  EXPECT_EQ(::read(fd, &byte, 1), 0);  // closed without an answer
  close(fd);
  EXPECT_EQ(call({{"op", "list"}}).exit_status, 0);
}

// --- errors ---

TEST_F(ProcessSupervisorTest, AnUnknownProcessIsNotFound) {
  expect_error(call({{"op", "read"}, {"process_id", "p9"}}), "not_found",
               "No process 'p9' in this computer. process_list shows the ones it holds.");
  expect_error(call({{"op", "kill"}, {"process_id", "p9"}}), "not_found", "No process 'p9'");
}

TEST_F(ProcessSupervisorTest, MalformedRequestsAreInvalidArguments) {
  expect_error(call_raw("this is not json"), "invalid_argument", "not valid JSON");
  expect_error(call({{"protocol", 2}, {"op", "list"}}), "invalid_argument",
               "protocol 2 is not spoken by this supervisor (1)");
  expect_error(call({{"op", "dance"}}), "invalid_argument", "\"op\"");
  expect_error(call({{"op", "start"}, {"argv", json::array()}}), "invalid_argument", "\"argv\"");
  expect_error(call({{"op", "start"}, {"argv", {"true"}}, {"wait_ms", 40000}}), "invalid_argument",
               "\"wait_ms\" must be from 0 to 30000");
  expect_error(call({{"op", "start"}, {"argv", {"true"}}, {"pty", true}, {"rows", 1}}),
               "invalid_argument", "\"rows\"");
  expect_error(call({{"op", "start"}, {"argv", {"true"}}, {"cols", 5000}}), "invalid_argument",
               "\"cols\"");
  expect_error(call({{"op", "start"}, {"argv", {"true"}}, {"env", {{"1BAD", "x"}}}}),
               "invalid_argument", "\"env\"");
  expect_error(call({{"op", "start"}, {"argv", std::vector<std::string>(1025, "x")}}),
               "invalid_argument", "1025 arguments");
  expect_error(call({{"op", "start"}, {"argv", {"true"}}, {"cwd", "/no/such/folder"}}),
               "invalid_argument", "Working directory '/no/such/folder' does not exist.");
  expect_error(call({{"op", "read"}, {"process_id", 7}}), "invalid_argument", "\"process_id\"");
}

TEST_F(ProcessSupervisorTest, InputOverTheLimitIsRefused) {
  start({{"argv", {"cat"}}, {"wait_ms", 0}});
  expect_error(call({{"op", "write"}, {"process_id", "p1"}, {"input", std::string(70000, 'x')}}),
               "invalid_argument",
               "input is 70000 bytes; at most 65536 bytes can be written at once.");
}

TEST_F(ProcessSupervisorTest, InputNobodyReadsIsRefusedPastTheBacklog) {
  start({{"argv", {"sleep", "60"}}, {"wait_ms", 0}});  // never reads its stdin
  const std::string chunk(60000, 'x');
  CallResult result;
  int accepted = 0;
  for (; accepted < 40; ++accepted) {
    result = call({{"op", "write"}, {"process_id", "p1"}, {"input", chunk}, {"wait_ms", 0}});
    if (result.exit_status != 0) break;
  }
  expect_error(result, "input_backlog", "has not read the last");
  // The pipe took some (64 KiB), the backlog holds 1 MiB: about 18 writes of 60000 bytes.
  EXPECT_GE(accepted, 17);
  EXPECT_LE(accepted, 20);
}

TEST_F(ProcessSupervisorTest, TheRunningLimitIsThirtyTwo) {
  for (int i = 0; i < 32; ++i) start({{"argv", {"sleep", "60"}}, {"wait_ms", 0}});
  expect_error(call({{"op", "start"}, {"argv", {"sleep", "60"}}, {"wait_ms", 0}}), "process_limit",
               "This computer already runs 32 processes, the most it holds at once. End one "
               "with process_kill first.");
  ASSERT_EQ(call({{"op", "kill"}, {"process_id", "p1"}, {"signal", "KILL"}}).exit_status, 0);
  EXPECT_EQ(start({{"argv", {"true"}}, {"wait_ms", 0}}).at("process").at("process_id"), "p33");
}

TEST_F(ProcessSupervisorTest, AStateFolderOthersCanEnterIsRefused) {
  ASSERT_EQ(mkdir(state_dir_.c_str(), 0700), 0);
  ASSERT_EQ(chmod(state_dir_.c_str(), 0755), 0);
  expect_error(call({{"op", "list"}}), "failed", "must be 0700");
  EXPECT_FALSE(supervisor_pid(state_dir_).has_value());
}

}  // namespace
