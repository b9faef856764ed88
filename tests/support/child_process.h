// child_process.h — a child process with a stdin pipe, a stdout pipe read line by line, and
// stderr captured in a temporary file, for tests that drive a real program.
//
// Every read and wait is bounded by a timeout, so a hung child fails a test instead of hanging
// the suite. Every descriptor the test process creates is close-on-exec, so a child never
// inherits another child's pipes (which would hide EOF from the test).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vc::test {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the program
  bool search_path = false;       // look argv[0] up on PATH (posix_spawnp)
  // Environment changes applied to the test process's own environment (or to an empty one
  // when inherit_environment is false). A variable mapped to std::nullopt is removed.
  std::map<std::string, std::optional<std::string>> environment;
  bool inherit_environment = true;
  // Put the child in a process group of its own, so that kill_group() also ends what it
  // spawned and a terminal's Ctrl-C does not reach it.
  bool own_process_group = true;
  // Where the child's stderr goes; empty: a new temporary file, removed with the object.
  std::filesystem::path stderr_path;
};

// How a child ended.
struct ExitStatus {
  bool exited = false;  // exit() or return from main
  int code = -1;        // when exited
  int signal = 0;       // when killed by a signal
  std::string describe() const;  // "exit code 0", "killed by signal 9 (Killed)"
  int shell_code() const { return exited ? code : 128 + signal; }  // as a shell's $?
};

enum class ReadResult { line, timeout, eof };

class ChildProcess {
 public:
  // Starts the program. Throws std::runtime_error (with errno text) when it cannot.
  explicit ChildProcess(const SpawnOptions& options);
  ~ChildProcess();  // SIGKILLs a child still running, reaps it, removes the stderr temp file
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // Writes all of `data` to the child's stdin. False when the child closed its stdin, stdin was
  // closed already, or the timeout passed first.
  bool write_stdin(std::string_view data, std::chrono::milliseconds timeout);
  void close_stdin();
  bool stdin_open() const { return stdin_fd_ >= 0; }

  // The next line of stdout without its '\n' (a final line without one is returned at EOF).
  ReadResult read_line(std::string& line, std::chrono::milliseconds timeout);
  // Everything stdout still delivers until EOF; std::nullopt when EOF does not come in time.
  std::optional<std::string> read_to_eof(std::chrono::milliseconds timeout);
  // True once stdout reached EOF and every buffered line was read.
  bool stdout_at_eof() const { return stdout_eof_ && buffer_.empty(); }

  // Reaps the child if it has exited; waits at most `timeout`.
  std::optional<ExitStatus> wait(std::chrono::milliseconds timeout);
  std::optional<ExitStatus> exit_status() const { return status_; }
  bool running();

  void kill(int signal);        // the child only
  void kill_group(int signal);  // the child's process group (own_process_group only)

  // Closes stdin, waits up to `grace` for the child to exit by itself, then SIGKILLs it (and its
  // group). Returns how it ended.
  ExitStatus stop(std::chrono::milliseconds grace);

  const std::filesystem::path& stderr_path() const { return stderr_path_; }
  std::string stderr_text() const;  // what the child wrote to stderr so far

 private:
  bool fill_buffer(std::chrono::milliseconds timeout);  // false on timeout

  pid_t pid_ = -1;
  bool own_group_ = false;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  bool stdout_eof_ = false;
  std::string buffer_;  // stdout bytes not yet returned as lines
  std::filesystem::path stderr_path_;
  bool remove_stderr_file_ = false;
  std::optional<ExitStatus> status_;
};

}  // namespace vc::test
