// http_host.h — the real host serving MCP over HTTP on a free loopback port, and curl to talk
// to it. Each host gets its own computer id and scratch directories (template backend).
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

namespace vc::http_test {

using test::Json;
using namespace std::chrono_literals;

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
  explicit HttpHost(std::vector<std::string> extra_args = {},
                    test::Environment environment = {});
  ~HttpHost();

  int port() const { return port_; }
  std::string url(const std::string& path = "/mcp") const;
  test::ChildProcess& process() { return *process_; }

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
  test::ExitStatus stop();

 private:
  std::unique_ptr<test::TempDirectory> scratch_;
  std::unique_ptr<test::ChildProcess> process_;
  int port_ = 0;
};

Json initialize_request(int id = 1);
Json request(const Json& id, const std::string& method, Json params = Json::object());

}  // namespace vc::http_test
