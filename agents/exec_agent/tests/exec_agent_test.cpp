// exec_agent_test.cpp — vc-exec-agent driven as a real child process through pipes, speaking
// the protocol of docs/exec-agent.md with the shared codec (vc_exec_agent/frames.h). No
// container is needed: the agent runs its commands on this machine, which is what it does
// inside a computer too.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "vc_exec_agent/frames.h"

#ifndef VC_EXEC_AGENT_BINARY
#error "VC_EXEC_AGENT_BINARY must name the vc-exec-agent binary under test"
#endif

extern char** environ;

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;
using vc::exec_agent::Frame;
using vc::exec_agent::FrameType;

long long elapsed_ms(Clock::time_point since, Clock::time_point until = Clock::now()) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(until - since).count();
}

// Everything the agent said about one command.
struct CommandResult {
  std::optional<pid_t> pid;  // from `started`
  std::string out;
  std::string err;
  std::optional<json> exit;         // the `exit` frame
  std::vector<std::string> errors;  // `error` frames' messages
  Clock::time_point exited_at{};
};

// The agent as a child process: its stdin and stdout are the channel, its stderr is collected
// on a thread (so that its log never blocks it, whatever the test is doing).
class AgentProcess {
 public:
  AgentProcess() {
    std::signal(SIGPIPE, SIG_IGN);  // writing to an agent that has exited must not kill the test
    int input[2], output[2], errors[2];
    if (pipe2(input, O_CLOEXEC) != 0 || pipe2(output, O_CLOEXEC) != 0 ||
        pipe2(errors, O_CLOEXEC) != 0) {
      std::abort();
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input[0], 0);
    posix_spawn_file_actions_adddup2(&actions, output[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2);
    char program[] = VC_EXEC_AGENT_BINARY;
    char* argv[] = {program, nullptr};
    const int spawned = posix_spawn(&pid_, program, &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      std::fprintf(stderr, "cannot start %s: %s\n", program, std::strerror(spawned));
      std::abort();
    }
    close(input[0]);
    close(output[1]);
    close(errors[1]);
    stdin_fd_ = input[1];
    stdout_fd_ = output[0];
    stderr_fd_ = errors[0];
    stderr_reader_ = std::thread([this] { collect_stderr(); });
  }

  ~AgentProcess() {
    close_stdin();
    if (!exit_status_ && !wait_exit(3s)) {
      kill(pid_, SIGKILL);
      wait_exit(3s);
    }
    stderr_reader_.join();
    close(stdout_fd_);
    close(stderr_fd_);
  }

  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  pid_t pid() const { return pid_; }

  void send_raw(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t wrote = write(stdin_fd_, bytes.data(), bytes.size());
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) return;  // the agent is gone; the test's assertions will say so
      bytes.remove_prefix(static_cast<std::size_t>(wrote));
    }
  }
  void send(FrameType type, std::uint32_t id, std::string_view payload = {}) {
    send_raw(vc::exec_agent::encode_frame(type, id, payload));
  }
  void start(std::uint32_t id, const json& request) { send(FrameType::kStart, id, request.dump()); }
  void send_stdin(std::uint32_t id, std::string_view bytes) {
    for (std::size_t at = 0; at < bytes.size(); at += vc::exec_agent::kChunkSize) {
      send(FrameType::kStdin, id, bytes.substr(at, vc::exec_agent::kChunkSize));
    }
  }

  void close_stdin() {
    if (stdin_fd_ >= 0) close(stdin_fd_);
    stdin_fd_ = -1;
  }

  // The next frame within `timeout`; nothing on timeout or end of stream.
  std::optional<Frame> next_frame(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (auto frame = reader_.next()) return frame;
      if (!reader_.error().empty() || stdout_ended_) return std::nullopt;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd ready{stdout_fd_, POLLIN, 0};
      if (poll(&ready, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
      static char buffer[1 << 16];
      const ssize_t got = read(stdout_fd_, buffer, sizeof buffer);
      if (got > 0) {
        reader_.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
      } else if (got == 0 || errno != EINTR) {
        stdout_ended_ = true;
      }
    }
  }

  // Reads frames (keeping those of other commands for later) until `id` has ended.
  CommandResult wait_for_exit(std::uint32_t id, Clock::duration timeout = 10s) {
    wait_until(timeout, [&] { return results_[id].exit.has_value(); });
    CommandResult result = std::move(results_[id]);
    results_.erase(id);
    return result;
  }
  // Reads frames until `id` has `count` error frames; returns its result so far.
  const CommandResult& wait_for_errors(std::uint32_t id, std::size_t count,
                                       Clock::duration timeout = 5s) {
    wait_until(timeout, [&] { return results_[id].errors.size() >= count; });
    return results_[id];
  }
  std::optional<pid_t> wait_for_started(std::uint32_t id, Clock::duration timeout = 5s) {
    wait_until(timeout, [&] { return results_[id].pid.has_value() || results_[id].exit; });
    return results_[id].pid;
  }
  // Reads whatever comes within `timeout` into the results.
  void read_for(Clock::duration timeout) {
    wait_until(timeout, [] { return false; });
  }
  const CommandResult& result(std::uint32_t id) { return results_[id]; }

  // The agent's exit status (waitpid's), once it has exited within `timeout`.
  std::optional<int> wait_exit(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    while (!exit_status_) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_status_ = status;
        break;
      }
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(5ms);
    }
    return exit_status_;
  }

  std::string stderr_text() {
    std::lock_guard lock(stderr_mutex_);
    return stderr_text_;
  }

 private:
  template <typename Done>
  void wait_until(Clock::duration timeout, Done done) {
    const auto deadline = Clock::now() + timeout;
    while (!done()) {
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) return;
      auto frame = next_frame(left);
      if (!frame) return;
      record(*frame);
    }
  }

  void record(const Frame& frame) {
    CommandResult& result = results_[frame.id];
    switch (frame.type) {
      case FrameType::kStarted:
        result.pid = json::parse(frame.payload).at("pid").get<pid_t>();
        break;
      case FrameType::kStdout: result.out += frame.payload; break;
      case FrameType::kStderr: result.err += frame.payload; break;
      case FrameType::kExit:
        result.exit = json::parse(frame.payload);
        result.exited_at = Clock::now();
        break;
      case FrameType::kError:
        result.errors.push_back(json::parse(frame.payload).at("message").get<std::string>());
        break;
      default: ADD_FAILURE() << "unexpected frame type " << static_cast<int>(frame.type); break;
    }
  }

  void collect_stderr() {
    char buffer[4096];
    for (;;) {
      const ssize_t got = read(stderr_fd_, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return;
      std::lock_guard lock(stderr_mutex_);
      stderr_text_.append(buffer, static_cast<std::size_t>(got));
    }
  }

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  vc::exec_agent::FrameReader reader_;
  bool stdout_ended_ = false;
  std::map<std::uint32_t, CommandResult> results_;
  std::optional<int> exit_status_;
  std::thread stderr_reader_;
  std::mutex stderr_mutex_;
  std::string stderr_text_;
};

bool process_group_gone(pid_t pgid) { return kill(-pgid, 0) == -1 && errno == ESRCH; }

struct ProcessInfo {
  pid_t pid;
  char state;
  std::string name;
};

// Every process whose parent is `parent`, from /proc.
std::vector<ProcessInfo> children_of(pid_t parent) {
  std::vector<ProcessInfo> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = readdir(proc)) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    const std::string path = "/proc/" + std::string(entry->d_name) + "/stat";
    FILE* file = std::fopen(path.c_str(), "r");
    if (file == nullptr) continue;
    char line[1024] = {};
    const std::size_t got = std::fread(line, 1, sizeof line - 1, file);
    std::fclose(file);
    const std::string stat(line, got);
    // "pid (name) state ppid ...": the name may hold spaces and parentheses.
    const auto open = stat.find('(');
    const auto close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 4 > stat.size()) {
      continue;
    }
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 2, "%c %d", &state, &ppid) != 2) continue;
    if (ppid == parent) children.push_back({pid, state, stat.substr(open + 1, close - open - 1)});
  }
  closedir(proc);
  return children;
}

long resident_kib(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/status";
  FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, file)) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  }
  std::fclose(file);
  return kib;
}

std::string patterned_bytes(std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 7 + i / 251) % 256);
  return bytes;
}

class ExecAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agent_ = std::make_unique<AgentProcess>();
    const auto hello = agent_->next_frame(5s);
    ASSERT_TRUE(hello.has_value()) << "no hello; agent stderr: " << agent_->stderr_text();
    ASSERT_EQ(hello->type, FrameType::kHello);
  }

  CommandResult run(std::uint32_t id, const json& request, Clock::duration timeout = 10s) {
    agent_->start(id, request);
    return agent_->wait_for_exit(id, timeout);
  }

  std::unique_ptr<AgentProcess> agent_;
};

// --- the channel ---

TEST(ExecAgentHello, TheFirstFrameSaysWhoItIs) {
  AgentProcess agent;
  const auto hello = agent.next_frame(5s);
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ(hello->type, FrameType::kHello);
  EXPECT_EQ(hello->id, 0u);
  const json body = json::parse(hello->payload);
  EXPECT_EQ(body.at("agent"), "vc-exec-agent");
  ASSERT_TRUE(body.at("version").is_string());
  EXPECT_FALSE(body.at("version").get<std::string>().empty());
  EXPECT_EQ(body.at("protocol"), vc::exec_agent::kProtocolVersion);
  EXPECT_EQ(body.at("pid"), agent.pid());
  EXPECT_EQ(body.at("uid"), getuid());
  // Nothing else comes unasked.
  EXPECT_FALSE(agent.next_frame(100ms).has_value());
}

// --- ordinary commands ---

TEST_F(ExecAgentTest, TrueExitsZero) {
  const auto result = run(1, {{"argv", {"true"}}});
  ASSERT_TRUE(result.exit.has_value());
  ASSERT_TRUE(result.pid.has_value());
  EXPECT_GT(*result.pid, 0);
  EXPECT_EQ(result.exit->at("outcome"), "exited");
  EXPECT_EQ(result.exit->at("exit_code"), 0);
  EXPECT_FALSE(result.exit->contains("signal"));
  EXPECT_FALSE(result.exit->contains("error_code"));
  EXPECT_GE(result.exit->at("duration_ms").get<long long>(), 0);
  EXPECT_LT(result.exit->at("duration_ms").get<long long>(), 2000);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "");
}

TEST_F(ExecAgentTest, StdoutAndStderrComeApartWithTheExitCode) {
  const auto result = run(2, {{"argv", {"sh", "-c", "echo out; echo err >&2; exit 3"}}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
  EXPECT_EQ(result.exit->at("outcome"), "exited");
  EXPECT_EQ(result.exit->at("exit_code"), 3);
}

TEST_F(ExecAgentTest, ASignalEndingTheCommandIs128PlusIt) {
  const auto result = run(3, {{"argv", {"sh", "-c", "kill -TERM $$"}}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.exit->at("outcome"), "exited");
  EXPECT_EQ(result.exit->at("exit_code"), 143);
  EXPECT_EQ(result.exit->at("signal"), 15);
}

TEST_F(ExecAgentTest, WorkingDirectoryAndEnvironmentApply) {
  char folder[] = "/tmp/vc-exec-agent-test-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  char* real = realpath(folder, nullptr);
  const std::string expected_folder = real;
  std::free(real);
  const auto result = run(4, {{"argv", {"sh", "-c", "pwd -P; printf '%s\\n' \"$VC_TEST_VAR\""}},
                              {"cwd", folder},
                              {"env", {{"VC_TEST_VAR", "a b=c"}}}});
  rmdir(folder);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.out, expected_folder + "\na b=c\n");
  EXPECT_EQ(result.exit->at("exit_code"), 0);
}

// --- stdin ---

TEST_F(ExecAgentTest, StdinBytesReachTheCommand) {
  agent_->start(5, {{"argv", {"cat"}}, {"stdin", true}});
  agent_->send(FrameType::kStdin, 5, "hello\n");
  agent_->send(FrameType::kStdin, 5, "world\n");
  agent_->send(FrameType::kStdinEnd, 5);
  const auto result = agent_->wait_for_exit(5);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.out, "hello\nworld\n");
  EXPECT_EQ(result.exit->at("exit_code"), 0);
  EXPECT_TRUE(result.errors.empty());
}

TEST_F(ExecAgentTest, OneMebibyteOfStdinInChunksArrivesWhole) {
  const std::string data = patterned_bytes(1u << 20);

  agent_->start(6, {{"argv", {"wc", "-c"}}, {"stdin", true}});
  agent_->send_stdin(6, data);
  agent_->send(FrameType::kStdinEnd, 6);
  const auto counted = agent_->wait_for_exit(6);
  ASSERT_TRUE(counted.exit.has_value());
  EXPECT_EQ(counted.out, "1048576\n");

  // Both ways at once: cat sends it back while the rest is still going in.
  agent_->start(7, {{"argv", {"cat"}}, {"stdin", true}});
  agent_->send_stdin(7, data);
  agent_->send(FrameType::kStdinEnd, 7);
  const auto echoed = agent_->wait_for_exit(7);
  ASSERT_TRUE(echoed.exit.has_value());
  EXPECT_EQ(echoed.out.size(), data.size());
  EXPECT_TRUE(echoed.out == data);
  EXPECT_EQ(echoed.exit->at("exit_code"), 0);
}

TEST_F(ExecAgentTest, WithoutStdinTheCommandReadsDevNull) {
  const auto start = Clock::now();
  const auto cat = run(8, {{"argv", {"cat"}}, {"stdin", false}});
  ASSERT_TRUE(cat.exit.has_value());
  EXPECT_LT(elapsed_ms(start), 1000);
  EXPECT_EQ(cat.out, "");
  EXPECT_EQ(cat.exit->at("exit_code"), 0);

  const auto link = run(9, {{"argv", {"readlink", "/proc/self/fd/0"}}});
  ASSERT_TRUE(link.exit.has_value());
  EXPECT_EQ(link.out, "/dev/null\n");
}

TEST_F(ExecAgentTest, StdinNobodyReadsIsDroppedQuietly) {
  agent_->start(10, {{"argv", {"true"}}, {"stdin", true}});
  agent_->send_stdin(10, patterned_bytes(1u << 20));
  agent_->send(FrameType::kStdinEnd, 10);
  const auto result = agent_->wait_for_exit(10);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.exit->at("exit_code"), 0);
  // Frames that were still coming when it ended are neither errors nor fatal.
  const auto next = run(11, {{"argv", {"echo", "still here"}}});
  EXPECT_EQ(next.out, "still here\n");
  agent_->read_for(100ms);
  EXPECT_TRUE(agent_->result(10).errors.empty());
}

// --- start failures ---

TEST_F(ExecAgentTest, AMissingProgramIs127WithTheShellsMessage) {
  const auto result = run(12, {{"argv", {"nosuch-program", "--flag"}}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_TRUE(result.pid.has_value());
  EXPECT_EQ(result.err, "nosuch-program: No such file or directory\n");
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.exit->at("outcome"), "exited");
  EXPECT_EQ(result.exit->at("exit_code"), 127);
}

TEST_F(ExecAgentTest, AProgramThatCannotRunIs126) {
  char path[] = "/tmp/vc-exec-agent-test-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  chmod(path, 0644);
  const auto result = run(13, {{"argv", {path}}});
  unlink(path);
  ASSERT_TRUE(result.exit.has_value());
  if (getuid() != 0) {
    EXPECT_EQ(result.err, std::string(path) + ": Permission denied\n");
  }
  EXPECT_EQ(result.exit->at("exit_code"), 126);
}

TEST_F(ExecAgentTest, AMissingWorkingDirectoryIsStartFailed) {
  const auto result = run(14, {{"argv", {"true"}}, {"cwd", "/nonexistent/vc-exec-agent"}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_FALSE(result.pid.has_value());  // nothing was started
  EXPECT_EQ(result.exit->at("outcome"), "start_failed");
  EXPECT_EQ(result.exit->at("error_code"), "cwd_missing");
  EXPECT_NE(result.exit->at("error").get<std::string>().find("/nonexistent/vc-exec-agent"),
            std::string::npos);
}

TEST_F(ExecAgentTest, AWorkingDirectoryThatIsAFileIsUnusable) {
  char path[] = "/tmp/vc-exec-agent-test-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const auto result = run(15, {{"argv", {"true"}}, {"cwd", path}});
  unlink(path);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_FALSE(result.pid.has_value());
  EXPECT_EQ(result.exit->at("outcome"), "start_failed");
  EXPECT_EQ(result.exit->at("error_code"), "cwd_unusable");
}

// --- many at once ---

TEST_F(ExecAgentTest, TwentyConcurrentCommandsKeepTheirOwnOutputAndExitCodes) {
  constexpr std::uint32_t kFirst = 100;
  constexpr std::uint32_t kCount = 20;
  const auto start = Clock::now();
  for (std::uint32_t id = kFirst; id < kFirst + kCount; ++id) {
    const std::string script = "for i in 1 2 3 4 5 6 7 8 9 10; do echo " + std::to_string(id) +
                               "-$i; echo e" + std::to_string(id) +
                               " >&2; sleep 0.01; done; exit " + std::to_string(id - kFirst + 1);
    agent_->start(id, {{"argv", {"sh", "-c", script}}});
  }
  std::vector<pid_t> pids;
  for (std::uint32_t id = kFirst; id < kFirst + kCount; ++id) {
    const auto result = agent_->wait_for_exit(id);
    ASSERT_TRUE(result.exit.has_value()) << "command " << id;
    std::string expected_out, expected_err;
    for (int i = 1; i <= 10; ++i) {
      // (appends, not "e" + std::string: GCC 12's -Wrestrict misfires on that at -O3)
      expected_out.append(std::to_string(id)).append("-").append(std::to_string(i)).append("\n");
      expected_err.append("e").append(std::to_string(id)).append("\n");
    }
    EXPECT_EQ(result.out, expected_out);
    EXPECT_EQ(result.err, expected_err);
    EXPECT_EQ(result.exit->at("exit_code"), static_cast<int>(id - kFirst + 1));
    ASSERT_TRUE(result.pid.has_value());
    pids.push_back(*result.pid);
  }
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(std::unique(pids.begin(), pids.end()), pids.end());
  // Each takes over 100 ms alone; run one after another they would take over 2 s.
  EXPECT_LT(elapsed_ms(start), 2000);
}

// --- limits, timeouts, cancel ---

TEST_F(ExecAgentTest, OutputLimitDeliversExactlyTheLimitThenKills) {
  const auto start = Clock::now();
  const auto result =
      run(20, {{"argv", {"head", "-c", "50M", "/dev/zero"}}, {"output_limit", 1 << 20}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_LT(elapsed_ms(start), 2000);
  EXPECT_EQ(result.out.size(), 1u << 20);
  EXPECT_EQ(result.out.find_first_not_of('\0'), std::string::npos);
  EXPECT_EQ(result.exit->at("outcome"), "output_limit_exceeded");
  EXPECT_EQ(result.exit->at("exit_code"), 137);
  EXPECT_EQ(result.exit->at("signal"), 9);
  ASSERT_TRUE(result.pid.has_value());
  EXPECT_TRUE(process_group_gone(*result.pid));
}

TEST_F(ExecAgentTest, OutputLimitCountsStdoutAndStderrTogether) {
  const auto result =
      run(21, {{"argv", {"sh", "-c", "yes out & exec yes err >&2"}}, {"output_limit", 100000}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.out.size() + result.err.size(), 100000u);
  EXPECT_EQ(result.exit->at("outcome"), "output_limit_exceeded");
  ASSERT_TRUE(result.pid.has_value());
  EXPECT_TRUE(process_group_gone(*result.pid));  // the background `yes` too
}

TEST_F(ExecAgentTest, OutputUpToTheLimitIsNotExceeding) {
  const auto fits = run(22, {{"argv", {"printf", "abc"}}, {"output_limit", 3}});
  ASSERT_TRUE(fits.exit.has_value());
  EXPECT_EQ(fits.out, "abc");
  EXPECT_EQ(fits.exit->at("outcome"), "exited");

  const auto cut = run(23, {{"argv", {"printf", "abc"}}, {"output_limit", 2}});
  ASSERT_TRUE(cut.exit.has_value());
  EXPECT_EQ(cut.out, "ab");
  EXPECT_EQ(cut.exit->at("outcome"), "output_limit_exceeded");
}

TEST_F(ExecAgentTest, TimeoutTerminatesTheGroup) {
  const auto start = Clock::now();
  const auto result = run(30, {{"argv", {"sleep", "30"}}, {"timeout_ms", 300}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_GE(elapsed_ms(start), 290);
  EXPECT_LT(elapsed_ms(start), 1000);
  EXPECT_EQ(result.exit->at("outcome"), "timed_out");
  EXPECT_EQ(result.exit->at("signal"), 15);
  EXPECT_EQ(result.exit->at("exit_code"), 143);
  EXPECT_GE(result.exit->at("duration_ms").get<long long>(), 290);
  ASSERT_TRUE(result.pid.has_value());
  EXPECT_TRUE(process_group_gone(*result.pid));
}

TEST_F(ExecAgentTest, ACommandIgnoringTermIsKilledAfterTheGrace) {
  const auto start = Clock::now();
  const auto result = run(
      31, {{"argv", {"sh", "-c", "trap '' TERM; sleep 30; echo survived"}}, {"timeout_ms", 200}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_GE(elapsed_ms(start), 650);  // 200 ms, then the 500 ms grace
  EXPECT_LT(elapsed_ms(start), 1500);
  EXPECT_EQ(result.exit->at("outcome"), "timed_out");
  EXPECT_EQ(result.exit->at("signal"), 9);
  EXPECT_EQ(result.exit->at("exit_code"), 137);
  EXPECT_EQ(result.out, "");
  ASSERT_TRUE(result.pid.has_value());
  EXPECT_TRUE(process_group_gone(*result.pid));
}

TEST_F(ExecAgentTest, NothingOfATimedOutGroupIsLeftWhenItsReportComes) {
  // The leader dies of the TERM at once; a member ignoring TERM, holding no pipe, lives on
  // until the KILL 500 ms later. The report waits for it.
  const auto start = Clock::now();
  const auto result =
      run(33, {{"argv", {"sh", "-c", "(trap '' TERM; exec sleep 30) >/dev/null 2>&1 & wait"}},
               {"timeout_ms", 200}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_GE(elapsed_ms(start), 650);
  EXPECT_LT(elapsed_ms(start), 1500);
  EXPECT_EQ(result.exit->at("outcome"), "timed_out");
  EXPECT_EQ(result.exit->at("exit_code"), 143);  // the leader's own end
  EXPECT_EQ(result.exit->at("signal"), 15);
  EXPECT_LT(result.exit->at("duration_ms").get<long long>(), 500);
  ASSERT_TRUE(result.pid.has_value());
  EXPECT_TRUE(process_group_gone(*result.pid));
}

TEST_F(ExecAgentTest, CancelEndsTheGroup) {
  agent_->start(32, {{"argv", {"sh", "-c", "sleep 30 & sleep 30"}}});
  const auto pid = agent_->wait_for_started(32);
  ASSERT_TRUE(pid.has_value());
  std::this_thread::sleep_for(100ms);  // both sleeps running
  const auto cancelled_at = Clock::now();
  agent_->send(FrameType::kCancel, 32);
  const auto result = agent_->wait_for_exit(32);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_LT(elapsed_ms(cancelled_at), 500);
  EXPECT_EQ(result.exit->at("outcome"), "cancelled");
  EXPECT_EQ(result.exit->at("signal"), 15);
  EXPECT_EQ(result.exit->at("exit_code"), 143);
  EXPECT_TRUE(process_group_gone(*pid));
}

// --- what commands leave behind ---

TEST_F(ExecAgentTest, ACommandThatStartsADaemonReturnsPromptly) {
  const auto start = Clock::now();
  const auto result = run(40, {{"argv", {"sh", "-c", "sleep 30 & echo started"}}});
  const auto took = elapsed_ms(start);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.out, "started\n");
  EXPECT_EQ(result.exit->at("outcome"), "exited");
  EXPECT_EQ(result.exit->at("exit_code"), 0);
  EXPECT_GE(took, 190);  // the drain window: the daemon holds stdout
  EXPECT_LT(took, 700);
  ASSERT_TRUE(result.pid.has_value());
  // The daemon goes on.
  EXPECT_FALSE(process_group_gone(*result.pid));
  kill(-*result.pid, SIGKILL);
}

TEST_F(ExecAgentTest, OrphansAreAdoptedAndReaped) {
  const auto result = run(41, {{"argv", {"sh", "-c", "(sleep 0.3 >/dev/null 2>&1 &); echo ok"}}});
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.out, "ok\n");
  // The orphaned sleep now belongs to the agent (the subreaper)...
  const auto adopted = children_of(agent_->pid());
  EXPECT_TRUE(std::any_of(adopted.begin(), adopted.end(), [](const ProcessInfo& child) {
    return child.name == "sleep";
  })) << "the orphan was not reparented to the agent";
  // ...which reaps it when it ends: no zombie, no child at all.
  std::this_thread::sleep_for(600ms);
  const auto left = children_of(agent_->pid());
  for (const auto& child : left) {
    ADD_FAILURE() << "child " << child.pid << " (" << child.name << ") in state " << child.state;
  }
}

// --- requests the agent refuses ---

TEST_F(ExecAgentTest, BadRequestsGetErrorFramesAndTheChannelGoesOn) {
  agent_->send(FrameType::kStart, 50, "not json");
  agent_->start(51, {{"argv", json::array()}});
  agent_->start(52, {{"argv", "true"}});
  agent_->start(53, {{"argv", {"true"}}, {"timeout_ms", -1}});
  agent_->start(54, {{"argv", {"true"}}, {"stdin", "yes"}});
  agent_->start(0, {{"argv", {"true"}}});
  agent_->send(FrameType::kStdin, 77, "bytes for nobody");
  agent_->send(FrameType::kCancel, 78);
  for (std::uint32_t id : {50u, 51u, 52u, 53u, 54u, 0u, 77u, 78u}) {
    const auto& result = agent_->wait_for_errors(id, 1);
    ASSERT_EQ(result.errors.size(), 1u) << "id " << id;
    EXPECT_FALSE(result.errors.front().empty());
    EXPECT_FALSE(result.pid.has_value());
    EXPECT_FALSE(result.exit.has_value());
  }
  EXPECT_NE(agent_->result(50).errors.front().find("malformed start"), std::string::npos);
  EXPECT_NE(agent_->result(51).errors.front().find("argv"), std::string::npos);
  EXPECT_NE(agent_->result(53).errors.front().find("timeout_ms"), std::string::npos);

  const auto after = run(55, {{"argv", {"echo", "fine"}}});
  ASSERT_TRUE(after.exit.has_value());
  EXPECT_EQ(after.out, "fine\n");
}

TEST_F(ExecAgentTest, ADuplicateRunningIdIsRefused) {
  agent_->start(60, {{"argv", {"sleep", "30"}}});
  const auto pid = agent_->wait_for_started(60);
  ASSERT_TRUE(pid.has_value());
  agent_->start(60, {{"argv", {"true"}}});
  const auto& refused = agent_->wait_for_errors(60, 1);
  ASSERT_EQ(refused.errors.size(), 1u);
  EXPECT_NE(refused.errors.front().find("already running"), std::string::npos);
  // stdin to a command started without it is refused too.
  agent_->send(FrameType::kStdin, 60, "x");
  EXPECT_EQ(agent_->wait_for_errors(60, 2).errors.size(), 2u);

  agent_->send(FrameType::kCancel, 60);
  const auto result = agent_->wait_for_exit(60);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.pid, pid);  // the first command's, not another
  EXPECT_EQ(result.exit->at("outcome"), "cancelled");
  // Once ended, the id can be used again.
  const auto again = run(60, {{"argv", {"echo", "again"}}});
  EXPECT_EQ(again.out, "again\n");
}

// --- the channel's end ---

struct BrokenFrame {
  const char* name;
  std::string bytes;
  const char* reason;  // in the agent's stderr line
};

class ExecAgentProtocolErrorTest : public ::testing::TestWithParam<BrokenFrame> {};

TEST_P(ExecAgentProtocolErrorTest, EndsEveryCommandAndExitsNonZero) {
  AgentProcess agent;
  ASSERT_TRUE(agent.next_frame(5s).has_value());
  agent.start(1, {{"argv", {"sh", "-c", "trap '' TERM; sleep 30"}}});
  const auto pid = agent.wait_for_started(1);
  ASSERT_TRUE(pid.has_value());
  std::this_thread::sleep_for(50ms);  // the trap is set: the KILL after the grace is needed

  const auto start = Clock::now();
  agent.send_raw(GetParam().bytes);
  const auto status = agent.wait_exit(3s);
  ASSERT_TRUE(status.has_value()) << "the agent did not exit";
  EXPECT_GE(elapsed_ms(start), 450);  // TERM, the grace, KILL
  EXPECT_LT(elapsed_ms(start), 1500);
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 2);
  EXPECT_TRUE(process_group_gone(*pid));
  const std::string log = agent.stderr_text();
  EXPECT_NE(log.find("vc-exec-agent: protocol error: "), std::string::npos) << log;
  EXPECT_NE(log.find(GetParam().reason), std::string::npos) << log;
}

std::string header(std::uint32_t length, std::uint32_t id, std::uint8_t type) {
  const unsigned char bytes[] = {static_cast<unsigned char>(length >> 24),
                                 static_cast<unsigned char>(length >> 16),
                                 static_cast<unsigned char>(length >> 8),
                                 static_cast<unsigned char>(length),
                                 static_cast<unsigned char>(id >> 24),
                                 static_cast<unsigned char>(id >> 16),
                                 static_cast<unsigned char>(id >> 8),
                                 static_cast<unsigned char>(id),
                                 type};
  return std::string(reinterpret_cast<const char*>(bytes), sizeof bytes);
}

INSTANTIATE_TEST_SUITE_P(
    Frames, ExecAgentProtocolErrorTest,
    ::testing::Values(BrokenFrame{"Oversized", header(2u << 20, 1, 0x02), "2097152"},
                      BrokenFrame{"UnknownType", header(0, 1, 0x7f), "unknown type 127"},
                      BrokenFrame{"AgentOnlyType", header(2, 0, 0x10) + "{}", "type 16"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(ExecAgentChannelEnd, ClosingStdinEndsCommandsAndExitsZero) {
  AgentProcess agent;
  ASSERT_TRUE(agent.next_frame(5s).has_value());
  agent.start(1, {{"argv", {"sleep", "30"}}});
  agent.start(2, {{"argv", {"sh", "-c", "trap '' TERM; sleep 30"}}});
  const auto first = agent.wait_for_started(1);
  const auto second = agent.wait_for_started(2);
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  std::this_thread::sleep_for(50ms);  // the trap is set

  const auto start = Clock::now();
  agent.close_stdin();
  const auto status = agent.wait_exit(3s);
  ASSERT_TRUE(status.has_value()) << "the agent did not exit";
  EXPECT_LT(elapsed_ms(start), 1500);
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  EXPECT_TRUE(process_group_gone(*first));
  EXPECT_TRUE(process_group_gone(*second));
}

// --- volume ---

TEST_F(ExecAgentTest, FiftyMegabytesArriveWholeAndInOrderDespiteASlowReader) {
  constexpr int kLast = 6'400'000;  // `seq 1 6400000`: 50,088,896 bytes
  std::string expected;
  expected.reserve(51u << 20);
  for (int number = 1; number <= kLast; ++number) {
    expected += std::to_string(number);
    expected += '\n';
  }

  agent_->start(70, {{"argv", {"seq", "1", std::to_string(kLast)}}});
  // Not reading for a while: the agent must stop taking output at its high-water mark rather
  // than hold all of it (or drop any).
  std::this_thread::sleep_for(1s);
  const long rss = resident_kib(agent_->pid());
  EXPECT_GT(rss, 0);
  EXPECT_LT(rss, 32 * 1024) << "the agent buffered instead of pushing back";

  const auto result = agent_->wait_for_exit(70, 30s);
  ASSERT_TRUE(result.exit.has_value());
  EXPECT_EQ(result.exit->at("outcome"), "exited");
  EXPECT_EQ(result.exit->at("exit_code"), 0);
  EXPECT_EQ(result.out.size(), expected.size());
  EXPECT_TRUE(result.out == expected) << "the output differs from seq's";
}

// --- speed ---

TEST_F(ExecAgentTest, RoundTripOfTrue) {
  constexpr int kRuns = 200;
  const auto direct_start = Clock::now();
  for (int run = 0; run < kRuns; ++run) {
    pid_t pid = -1;
    char program[] = "/bin/true";
    char* argv[] = {program, nullptr};
    ASSERT_EQ(posix_spawn(&pid, program, nullptr, nullptr, argv, environ), 0);
    int status = 0;
    waitpid(pid, &status, 0);
  }
  const auto direct_us =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - direct_start).count() /
      kRuns;

  const auto agent_start = Clock::now();
  for (int run = 0; run < kRuns; ++run) {
    const auto id = static_cast<std::uint32_t>(1000 + run);
    const auto result = this->run(id, {{"argv", {"/bin/true"}}});
    ASSERT_TRUE(result.exit.has_value());
    ASSERT_EQ(result.exit->at("exit_code"), 0);
  }
  const auto agent_us =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - agent_start).count() /
      kRuns;
  std::printf("[ timing   ] /bin/true: %lld us through the agent, %lld us spawned directly\n",
              static_cast<long long>(agent_us), static_cast<long long>(direct_us));
  RecordProperty("agent_round_trip_us", std::to_string(agent_us));
  RecordProperty("direct_spawn_us", std::to_string(direct_us));
  EXPECT_LT(agent_us, 20'000);
}

}  // namespace
