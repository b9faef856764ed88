// host_process.h — the real host binary as a child process, spoken to over pipes.
//
// Requests go to its stdin one line each; its stdout is read line by line with poll() and
// bounded waits; its stderr goes to a file the tests print when something fails.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vc::protocol_test {

using Json = nlohmann::ordered_json;
using namespace std::chrono_literals;

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The environment every host gets: the caller's, minus variables that would change the
// host's behaviour, plus `extra` (a null value removes a variable).
std::vector<std::string> host_environment(const std::map<std::string, std::optional<std::string>>& extra);

class HostProcess {
 public:
  HostProcess(const std::vector<std::string>& args,
              const std::map<std::string, std::optional<std::string>>& env = {});
  ~HostProcess();  // SIGKILLs a host that is still running
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;

  pid_t pid() const { return pid_; }

  void send(const Json& message);
  void send_raw(const std::string& bytes);  // exactly these bytes
  void close_stdin();

  // The next message from stdout, or nullopt after `timeout` (or at EOF).
  std::optional<Json> next_message(std::chrono::milliseconds timeout = 10s);
  // Sends a request and returns the response with its id; notifications received meanwhile
  // are kept in notifications(). Fails the test on timeout.
  Json request(const Json& id, const std::string& method, const Json& params = Json::object(),
               std::chrono::milliseconds timeout = 20s);
  // Waits for the response with `id`, keeping everything else in order in `others`.
  std::optional<Json> wait_for_response(const Json& id, std::chrono::milliseconds timeout = 20s);
  // initialize + notifications/initialized; returns the initialize result.
  Json initialize(const std::string& version = "2025-11-25");

  const std::vector<Json>& notifications() const { return notifications_; }
  // Messages read while waiting for something else, in arrival order.
  std::deque<Json>& others() { return others_; }

  // The exit status once the process has ended within `timeout`: exit code, or 128 + signal.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout = 15s);
  void signal(int signal_number);
  bool stdout_closed() const { return stdout_eof_; }
  std::string stderr_text() const;

 private:
  bool read_line(std::string& line, std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  bool stdout_eof_ = false;
  std::string stdout_buffer_;
  TempDir stderr_dir_;
  std::filesystem::path stderr_path_;
  std::vector<Json> notifications_;
  std::deque<Json> others_;
  std::optional<int> exit_status_;
};

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

enum class Stdin { dev_null, closed, file };

// Runs the host and returns what it printed (bounded wait). stdin is /dev/null, closed, or a
// regular file holding `stdin_text`.
CliResult run_host(const std::vector<std::string>& args,
                   const std::map<std::string, std::optional<std::string>>& env = {},
                   Stdin stdin_mode = Stdin::dev_null, const std::string& stdin_text = "");

// The arguments that start a host on the process backend in `scratch`.
std::vector<std::string> process_args(const TempDir& scratch);

}  // namespace vc::protocol_test
