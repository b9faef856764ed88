// http_host.h — the real host serving MCP over HTTP on a free port, and curl to talk to it.
// Each host gets its own computer id (unless given one) and a scratch directory for its state.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"
#include "command_runner.h"
#include "json.h"
#include "temp_directory.h"

namespace vc::test {

using namespace std::chrono_literals;

struct HttpHostOptions {
  std::string binary;              // the mcp-virtual-computer executable
  std::vector<std::string> args;   // backend and options; "@SCRATCH@" becomes a scratch path
  Environment environment;         // on top of the scrubbed environment
  std::optional<std::string> computer_id;  // default: a unique one
};

struct HttpReply {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // lower-case names
  std::string body;

  std::optional<std::string> header(const std::string& lower_case_name) const;
  Json json() const;  // the body parsed; discarded when it is not JSON
  // The JSON-RPC messages of an SSE body (the data lines of "message" events), in order.
  std::vector<Json> events() const;
  std::string describe() const;  // for assertion messages
};

class HttpHost {
 public:
  // Starts `--transport http --port 0` and waits until it serves.
  explicit HttpHost(HttpHostOptions options);
  ~HttpHost();
  HttpHost(const HttpHost&) = delete;
  HttpHost& operator=(const HttpHost&) = delete;

  const std::string& computer_id() const { return computer_id_; }

  int port() const { return port_; }
  std::string url(const std::string& path = "/mcp") const;
  ChildProcess& process() { return *process_; }

  // curl with these extra arguments against url(path).
  HttpReply request(const std::string& method, const std::string& path,
                    const std::vector<std::string>& curl_args,
                    std::chrono::milliseconds timeout = 60s) const;
  // POST of one JSON-RPC message to /mcp with the Accept and Content-Type MCP requires, and
  // the session id and extra headers given.
  HttpReply post(const Json& message, const std::optional<std::string>& session = std::nullopt,
                 const std::vector<std::string>& extra_headers = {}) const;

  // initialize + notifications/initialized; returns the session id.
  std::string open_session(const std::vector<std::string>& extra_headers = {}) const;

  // SIGTERM, and the exit status.
  ExitStatus stop();

 private:
  std::unique_ptr<TempDirectory> scratch_;
  std::unique_ptr<ChildProcess> process_;
  std::string computer_id_;
  int port_ = 0;
};

Json initialize_request(int id = 1);
Json request(const Json& id, const std::string& method, Json params = Json::object());

}  // namespace vc::test
