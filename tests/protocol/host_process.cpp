// host_process.cpp — see host_process.h.
#include "host_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

extern char** environ;

namespace vc::protocol_test {
namespace {

using Clock = std::chrono::steady_clock;

// Variables of the developer's shell that would change what the host does.
constexpr const char* kScrubbed[] = {
    "COMPUTER_ID", "NETWORK_ACCESS", "DESKTOP_ENVIRONMENT", "KILNTAINERS_AUTH_TOKEN",
    "MCP_VIRTUAL_COMPUTER_AUTH_TOKEN", "MCP_VIRTUAL_COMPUTER_PLUGIN_PATH",
    "VC_PROCESS_SCRATCH_ROOT", "XDG_STATE_HOME"};

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

pid_t spawn(const std::vector<std::string>& args, std::vector<std::string> env,
            posix_spawn_file_actions_t* actions) {
  std::vector<std::string> argv_strings{VC_HOST_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  auto argv = c_strings(argv_strings);
  auto envp = c_strings(env);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, VC_HOST_BINARY, actions, nullptr, argv.data(), envp.data());
  if (error != 0) throw std::runtime_error("posix_spawn failed: " + std::to_string(error));
  return pid;
}

std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (Clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(10ms);
  }
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "vc-protocol-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> host_environment(
    const std::map<std::string, std::optional<std::string>>& extra) {
  std::map<std::string, std::optional<std::string>> values;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    if (equals != std::string::npos) values[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const char* name : kScrubbed) values.erase(name);
  values["COMPUTER_ID"] = "protocol-test";
  for (const auto& [name, value] : extra) values[name] = value;
  std::vector<std::string> env;
  for (const auto& [name, value] : values) {
    if (value) env.push_back(name + "=" + *value);
  }
  return env;
}

std::vector<std::string> process_args(const TempDir& scratch) {
  return {"--backend", "process", "--scratch-root", (scratch.path() / "computers").string(),
          "--state-dir", (scratch.path() / "state").string()};
}

HostProcess::HostProcess(const std::vector<std::string>& args,
                         const std::map<std::string, std::optional<std::string>>& env) {
  stderr_path_ = stderr_dir_.path() / "stderr.log";
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_ = spawn(args, host_environment(env), &actions);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
}

HostProcess::~HostProcess() {
  close_stdin();
  if (!exit_status_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
  if (::testing::Test::HasFailure()) {
    std::cerr << "---- host stderr ----\n" << stderr_text() << "---------------------\n";
  }
}

void HostProcess::send(const Json& message) { send_raw(message.dump() + "\n"); }

void HostProcess::send_raw(const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(stdin_fd_, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0) << "writing the host's stdin failed";
    written += static_cast<size_t>(n);
  }
}

void HostProcess::close_stdin() {
  if (stdin_fd_ >= 0) close(stdin_fd_);
  stdin_fd_ = -1;
}

bool HostProcess::read_line(std::string& line, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const auto newline = stdout_buffer_.find('\n');
    if (newline != std::string::npos) {
      line = stdout_buffer_.substr(0, newline);
      stdout_buffer_.erase(0, newline + 1);
      return true;
    }
    if (stdout_eof_) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{stdout_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[65536];
    const ssize_t n = read(stdout_fd_, buffer, sizeof buffer);
    if (n <= 0) {
      stdout_eof_ = true;
      continue;
    }
    stdout_buffer_.append(buffer, static_cast<size_t>(n));
  }
}

std::optional<Json> HostProcess::next_message(std::chrono::milliseconds timeout) {
  std::string line;
  if (!read_line(line, timeout)) return std::nullopt;
  try {
    return Json::parse(line);
  } catch (const Json::parse_error&) {
    ADD_FAILURE() << "stdout carried a line that is not JSON: " << line;
    return Json();
  }
}

std::optional<Json> HostProcess::wait_for_response(const Json& id, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (auto it = others_.begin(); it != others_.end(); ++it) {
    if (it->contains("id") && (*it)["id"] == id && !it->contains("method")) {
      Json found = *it;
      others_.erase(it);
      return found;
    }
  }
  while (Clock::now() < deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto message = next_message(left);
    if (!message) return std::nullopt;
    if (message->contains("method")) {
      notifications_.push_back(*message);
      others_.push_back(*message);
      continue;
    }
    if (message->contains("id") && (*message)["id"] == id) return message;
    others_.push_back(*message);
  }
  return std::nullopt;
}

Json HostProcess::request(const Json& id, const std::string& method, const Json& params,
                          std::chrono::milliseconds timeout) {
  send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  auto response = wait_for_response(id, timeout);
  EXPECT_TRUE(response) << "no response to " << method << " (id " << id.dump() << ")";
  return response.value_or(Json());
}

Json HostProcess::initialize(const std::string& version) {
  const Json response = request(0, "initialize",
                                Json{{"protocolVersion", version},
                                     {"capabilities", Json::object()},
                                     {"clientInfo", {{"name", "protocol-test"}, {"version", "1"}}}});
  send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  return response.value("result", Json());
}

std::optional<int> HostProcess::wait_exit(std::chrono::milliseconds timeout) {
  if (!exit_status_) exit_status_ = wait_for_exit(pid_, timeout);
  return exit_status_;
}

void HostProcess::signal(int signal_number) { kill(pid_, signal_number); }

std::string HostProcess::stderr_text() const { return read_file(stderr_path_); }

CliResult run_host(const std::vector<std::string>& args,
                   const std::map<std::string, std::optional<std::string>>& env, Stdin stdin_mode,
                   const std::string& stdin_text) {
  TempDir dir;
  const auto out_path = dir.path() / "stdout";
  const auto err_path = dir.path() / "stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const auto in_path = dir.path() / "stdin";
  std::ofstream(in_path, std::ios::binary) << stdin_text;
  if (stdin_mode == Stdin::closed) {
    posix_spawn_file_actions_addclose(&actions, 0);
  } else if (stdin_mode == Stdin::file) {
    posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  auto environment = env;
  if (environment.count("XDG_STATE_HOME") == 0) environment["XDG_STATE_HOME"] = dir.path().string();
  const pid_t pid = spawn(args, host_environment(environment), &actions);
  posix_spawn_file_actions_destroy(&actions);
  CliResult result;
  const auto status = wait_for_exit(pid, 30s);
  if (!status) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    ADD_FAILURE() << "the host did not exit within 30 s";
  }
  result.exit_code = status.value_or(-1);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

}  // namespace vc::protocol_test
