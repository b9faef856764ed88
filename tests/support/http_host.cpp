// http_host.cpp — see http_host.h.
#include "http_host.h"

#include <signal.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "host_environment.h"
#include "test_names.h"

namespace vc::test {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::optional<std::string> HttpReply::header(const std::string& lower_case_name) const {
  const auto found = headers.find(lower_case_name);
  if (found == headers.end()) return std::nullopt;
  return found->second;
}

Json HttpReply::json() const { return Json::parse(body, nullptr, false); }

std::vector<Json> HttpReply::events() const {
  std::vector<Json> messages;
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("data: ", 0) == 0) messages.push_back(Json::parse(line.substr(6), nullptr, false));
  }
  return messages;
}

std::string HttpReply::describe() const {
  std::string text = "HTTP " + std::to_string(status);
  for (const auto& [name, value] : headers) text += "\n" + name + ": " + value;
  return text + "\n\n" + body.substr(0, 2000);
}

HttpHost::HttpHost(HttpHostOptions options) {
  scratch_ = std::make_unique<TempDirectory>("vc-http-host");
  SpawnOptions spawn;
  spawn.argv = {options.binary, "--transport", "http", "--port", "0"};
  for (auto arg : options.args) {
    if (arg == "@SCRATCH@") arg = scratch_->path().string();
    spawn.argv.push_back(arg);
  }
  computer_id_ = options.computer_id.value_or(unique_name("http"));
  options.environment["COMPUTER_ID"] = computer_id_;
  spawn.environment = host_environment(options.environment);
  process_ = std::make_unique<ChildProcess>(spawn);

  // The host logs the address it bound: "serving MCP over HTTP on http://127.0.0.1:PORT/mcp".
  static const std::regex kServing(R"(serving MCP over HTTP on http://[^:]+:(\d+)/mcp)");
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch match;
    const std::string log = process_->stderr_text();
    if (std::regex_search(log, match, kServing)) {
      port_ = std::stoi(match[1]);
      return;
    }
    if (!process_->running()) break;
    std::this_thread::sleep_for(20ms);
  }
  throw std::runtime_error("the HTTP host did not start serving; stderr:\n" +
                           process_->stderr_text());
}

HttpHost::~HttpHost() {
  if (process_ && process_->running()) stop();
}

std::string HttpHost::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

HttpReply HttpHost::request(const std::string& method, const std::string& path,
                            const std::vector<std::string>& curl_args,
                            std::chrono::milliseconds timeout) const {
  const auto headers_file = scratch_->path() / ("headers-" + unique_name("r"));
  const auto body_file = scratch_->path() / ("body-" + unique_name("r"));
  std::vector<std::string> argv = {"curl", "-sS", "-X", method, "-o", body_file.string(), "-D",
                                   headers_file.string(), "-w", "%{http_code}", "--max-time",
                                   std::to_string(timeout.count() / 1000)};
  argv.insert(argv.end(), curl_args.begin(), curl_args.end());
  argv.push_back(url(path));
  const auto result = run_command(argv, timeout + 5s);
  HttpReply reply;
  reply.status = std::atoi(result.out.c_str());
  reply.body = read_file(body_file);
  std::istringstream lines(read_file(headers_file));
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    reply.headers.emplace(lower(line.substr(0, colon)), value);
  }
  std::filesystem::remove(headers_file);
  std::filesystem::remove(body_file);
  return reply;
}

HttpReply HttpHost::post(const Json& message, const std::optional<std::string>& session,
                         const std::vector<std::string>& extra_headers) const {
  std::vector<std::string> args = {"-H", "Accept: application/json, text/event-stream", "-H",
                                   "Content-Type: application/json", "--data-binary",
                                   message.dump()};
  if (session) {
    args.push_back("-H");
    args.push_back("Mcp-Session-Id: " + *session);
  }
  for (const auto& header : extra_headers) {
    args.push_back("-H");
    args.push_back(header);
  }
  return request("POST", "/mcp", args);
}

std::string HttpHost::open_session(const std::vector<std::string>& extra_headers) const {
  const HttpReply reply = post(initialize_request(), std::nullopt, extra_headers);
  const auto id = reply.header("mcp-session-id");
  if (reply.status != 200 || !id) {
    throw std::runtime_error("initialize failed: " + reply.describe());
  }
  post(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, *id, extra_headers);
  return *id;
}

ExitStatus HttpHost::stop() {
  process_->kill(SIGTERM);
  auto status = process_->wait(15s);
  if (!status) return process_->stop(1s);
  return *status;
}

Json initialize_request(int id) {
  return request(id, "initialize",
                 Json{{"protocolVersion", "2025-11-25"},
                      {"capabilities", Json::object()},
                      {"clientInfo", {{"name", "http-test"}, {"version", "1.0.0"}}}});
}

Json request(const Json& id, const std::string& method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace vc::test
