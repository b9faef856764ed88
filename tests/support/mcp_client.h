// mcp_client.h — an MCP client over stdio for tests: starts the real server binary as a child
// process and speaks newline-delimited JSON-RPC 2.0 with it.
//
// What it offers, from low to high level:
//  - raw lines and bytes (for protocol tests that send malformed input);
//  - every message the server sent, in arrival order (next_message / received);
//  - requests matched to their responses by id, whatever arrives in between: notifications are
//    collected, server-to-client requests are collected (and a server "ping" is answered);
//  - initialize, tools/list and tools/call helpers;
//  - a graceful close: stdin EOF, a bounded wait, then SIGKILL.
// Every wait is bounded. A timeout or a broken connection throws McpClientError whose text
// carries the tail of the conversation and of the server's stderr, so a failing test says why.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "child_process.h"
#include "json.h"

namespace vc::test {

using std::chrono::milliseconds;

class McpClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct McpClientOptions {
  std::filesystem::path binary;    // the server executable
  std::vector<std::string> args;   // arguments after argv[0]
  // Environment changes for the server (std::nullopt removes a variable); see SpawnOptions.
  // host_environment() (host_environment.h) gives a scrubbed starting point.
  std::map<std::string, std::optional<std::string>> environment;
  bool inherit_environment = true;
  milliseconds default_timeout{60'000};  // for requests without an explicit timeout
  std::filesystem::path stderr_path;     // empty: a temporary file
  bool answer_server_pings = true;       // reply {} to a server-to-client "ping"
  // When the running GoogleTest test has failed by the time the client is destroyed, print
  // diagnostics() (conversation and stderr) to stderr.
  bool report_on_failure = true;
};

struct InitializeOptions {
  std::string protocol_version = "2025-11-25";
  Json client_info = {{"name", "vc-test-client"}, {"version", "1.0.0"}};
  Json capabilities = Json::object();
  bool send_initialized = true;  // follow up with notifications/initialized
};

class McpClient {
 public:
  explicit McpClient(McpClientOptions options);
  ~McpClient();  // close(5 s) if still running
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  // --- raw access ---------------------------------------------------------------------------
  void send(const Json& message);          // one serialised line
  void send_line(std::string_view line);   // `line` plus '\n', as given
  void send_bytes(std::string_view bytes); // exactly these bytes
  // The next message the server sent that next_message() has not returned yet, in arrival order
  // (responses included, even those await_response() consumed). std::nullopt on timeout or EOF.
  std::optional<Json> next_message(milliseconds timeout);
  // Every message received so far, in order.
  const std::vector<Json>& received() const { return received_; }
  // stdout lines that were not JSON (a protocol violation by the server).
  const std::vector<std::string>& unparsable_lines() const { return unparsable_; }

  // --- JSON-RPC -----------------------------------------------------------------------------
  // Sends a request with a fresh integer id and returns that id.
  Json send_request(const std::string& method, const std::optional<Json>& params = std::nullopt);
  // The response (the whole message: {"jsonrpc","id","result"|"error"}) for `id`. Throws on
  // timeout or when the server's stdout closes first.
  Json await_response(const Json& id, std::optional<milliseconds> timeout = std::nullopt);
  // A request with the caller's id (any JSON-RPC id: a string, 0, ...), and its response.
  Json request_with_id(const Json& id, const std::string& method,
                       const std::optional<Json>& params = std::nullopt,
                       std::optional<milliseconds> timeout = std::nullopt);
  // Like await_response, but std::nullopt instead of an exception on timeout or EOF: for
  // checking that something (a notification, a malformed line) gets no response.
  std::optional<Json> try_await_response(const Json& id, milliseconds timeout);
  // send_request + await_response.
  Json request(const std::string& method, const std::optional<Json>& params = std::nullopt,
               std::optional<milliseconds> timeout = std::nullopt);
  // request(), returning "result"; throws McpClientError when the response is an error.
  Json request_result(const std::string& method, const std::optional<Json>& params = std::nullopt,
                      std::optional<milliseconds> timeout = std::nullopt);
  void notify(const std::string& method, const std::optional<Json>& params = std::nullopt);
  // Answers a server-to-client request.
  void respond(const Json& id, const Json& result);

  // Notifications received so far (oldest first), and the same with removal.
  const std::vector<Json>& notifications() const { return notifications_; }
  std::vector<Json> take_notifications();
  // Waits until a notification with `method` has arrived (one already received counts) and
  // removes and returns the first such one; std::nullopt on timeout.
  std::optional<Json> wait_for_notification(const std::string& method, milliseconds timeout);
  // Server-to-client requests received so far (a ping answered automatically included).
  const std::vector<Json>& server_requests() const { return server_requests_; }

  // --- MCP ----------------------------------------------------------------------------------
  // initialize (+ notifications/initialized); returns the initialize result.
  Json initialize(const InitializeOptions& options = {});
  Json list_tools(std::optional<milliseconds> timeout = std::nullopt);
  // tools/call; returns the CallToolResult ({"content","structuredContent"?,"isError"?}).
  // A JSON-RPC error response throws McpClientError.
  Json call_tool(const std::string& name, const Json& arguments = Json::object(),
                 std::optional<milliseconds> timeout = std::nullopt,
                 const std::optional<Json>& progress_token = std::nullopt);
  // The tool's JSON payload: structuredContent, else the first text content parsed as JSON,
  // else that text as a JSON string.
  static Json payload_of(const Json& tool_result);
  static bool is_error(const Json& tool_result);

  // --- process ------------------------------------------------------------------------------
  ChildProcess& process() { return *process_; }
  pid_t pid() const { return process_->pid(); }
  void signal(int signal_number) { process_->kill(signal_number); }
  // True once the server's stdout has closed (and everything before it was read).
  bool stdout_closed() const { return eof_; }
  // Waits for the server to exit by itself (e.g. after stdin EOF or a fatal condition).
  std::optional<ExitStatus> wait_for_exit(milliseconds timeout);
  // Closes stdin, waits up to `grace` for the server to exit, then SIGKILLs it.
  ExitStatus close(milliseconds grace = milliseconds(10'000));
  std::string stderr_text() const { return process_->stderr_text(); }
  // The last lines of the conversation ("-> " sent, "<- " received) and of stderr, for
  // failure messages.
  std::string diagnostics() const;

 private:
  // Reads one stdout line (or waits up to `timeout` for one) and files it. False on timeout or
  // EOF (see eof_).
  bool pump(milliseconds timeout);
  void file_message(Json message);
  void remember(std::string_view direction, std::string_view line);
  [[noreturn]] void fail(const std::string& what) const;

  McpClientOptions options_;
  std::unique_ptr<ChildProcess> process_;
  int64_t next_id_ = 1;
  bool eof_ = false;
  std::vector<Json> received_;
  size_t next_message_index_ = 0;
  std::map<std::string, Json> responses_;  // by id.dump(), until awaited
  std::vector<Json> notifications_;
  std::vector<Json> server_requests_;
  std::vector<std::string> unparsable_;
  std::deque<std::string> transcript_;     // the last lines both ways, for diagnostics()
};

}  // namespace vc::test
