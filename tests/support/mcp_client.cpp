// mcp_client.cpp — see mcp_client.h.
#include "mcp_client.h"

#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

namespace vc::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kTranscriptLines = 40;
constexpr size_t kTranscriptLineChars = 600;
constexpr size_t kStderrTailChars = 6000;

milliseconds remaining(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? left : milliseconds(0);
}

std::string tail(const std::string& text, size_t chars) {
  if (text.size() <= chars) return text;
  return "[...]" + text.substr(text.size() - chars);
}

}  // namespace

McpClient::McpClient(McpClientOptions options) : options_(std::move(options)) {
  SpawnOptions spawn;
  spawn.argv.push_back(options_.binary.string());
  spawn.argv.insert(spawn.argv.end(), options_.args.begin(), options_.args.end());
  spawn.environment = options_.environment;
  spawn.inherit_environment = options_.inherit_environment;
  spawn.stderr_path = options_.stderr_path;
  process_ = std::make_unique<ChildProcess>(spawn);
}

McpClient::~McpClient() {
  if (options_.report_on_failure && ::testing::Test::HasFailure()) {
    std::cerr << "=== server pid " << pid() << " ===\n" << diagnostics() << '\n';
  }
  try {
    if (!process_->exit_status()) close(milliseconds(5'000));
  } catch (...) {
    // ~ChildProcess SIGKILLs and reaps whatever is left.
  }
}

void McpClient::remember(std::string_view direction, std::string_view line) {
  std::string entry(direction);
  if (line.size() > kTranscriptLineChars) {
    entry.append(line.substr(0, kTranscriptLineChars));
    entry.append("[... ").append(std::to_string(line.size())).append(" bytes]");
  } else {
    entry.append(line);
  }
  transcript_.push_back(std::move(entry));
  while (transcript_.size() > kTranscriptLines) transcript_.pop_front();
}

std::string McpClient::diagnostics() const {
  std::ostringstream text;
  text << "--- last messages (-> to the server, <- from it) ---\n";
  for (const auto& line : transcript_) text << line << '\n';
  text << "--- server stderr (" << process_->stderr_path().string() << ") ---\n"
       << tail(process_->stderr_text(), kStderrTailChars) << "\n--- end ---";
  return text.str();
}

void McpClient::fail(const std::string& what) const {
  throw McpClientError(what + "\n" + diagnostics());
}

void McpClient::send_bytes(std::string_view bytes) {
  if (!process_->write_stdin(bytes, options_.default_timeout)) {
    fail("could not write to the server's stdin (closed, or the server stopped reading)");
  }
}

void McpClient::send_line(std::string_view line) {
  remember("-> ", line);
  std::string framed(line);
  framed.push_back('\n');
  send_bytes(framed);
}

void McpClient::send(const Json& message) { send_line(message.dump()); }

void McpClient::file_message(Json message) {
  received_.push_back(message);
  if (!message.is_object()) return;
  const bool has_id = message.contains("id");
  const bool has_method = message.contains("method");
  if (has_method && has_id) {
    server_requests_.push_back(message);
    if (options_.answer_server_pings && message["method"] == "ping") {
      respond(message["id"], Json::object());
    }
  } else if (has_method) {
    notifications_.push_back(std::move(message));
  } else if (has_id) {
    // The key first: basic_json's operator= takes its argument by value, and that argument may
    // be initialised (moving `message` out) before the left-hand side is evaluated.
    std::string key = message["id"].dump();
    responses_[std::move(key)] = std::move(message);
  }
}

bool McpClient::pump(milliseconds timeout) {
  if (eof_) return false;
  std::string line;
  switch (process_->read_line(line, timeout)) {
    case ReadResult::timeout:
      return false;
    case ReadResult::eof:
      eof_ = true;
      return false;
    case ReadResult::line:
      break;
  }
  remember("<- ", line);
  Json message = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    unparsable_.push_back(line);
    return true;
  }
  file_message(std::move(message));
  return true;
}

std::optional<Json> McpClient::next_message(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (next_message_index_ >= received_.size()) {
    if (!pump(remaining(deadline))) {
      if (eof_ || Clock::now() >= deadline) return std::nullopt;
    }
  }
  return received_[next_message_index_++];
}

Json McpClient::send_request(const std::string& method, const std::optional<Json>& params) {
  Json id = next_id_++;
  Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (params) message["params"] = *params;
  send(message);
  return id;
}

Json McpClient::await_response(const Json& id, std::optional<milliseconds> timeout) {
  const auto limit = timeout.value_or(options_.default_timeout);
  if (auto response = try_await_response(id, limit)) return std::move(*response);
  if (eof_) fail("the server closed stdout before answering request " + id.dump());
  fail("no response to request " + id.dump() + " within " + std::to_string(limit.count()) + " ms");
}

std::optional<Json> McpClient::try_await_response(const Json& id, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string key = id.dump();
  for (;;) {
    if (auto found = responses_.find(key); found != responses_.end()) {
      Json response = std::move(found->second);
      responses_.erase(found);
      return response;
    }
    if (!pump(remaining(deadline)) && (eof_ || Clock::now() >= deadline)) return std::nullopt;
  }
}

Json McpClient::request_with_id(const Json& id, const std::string& method,
                               const std::optional<Json>& params,
                               std::optional<milliseconds> timeout) {
  Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (params) message["params"] = *params;
  send(message);
  return await_response(id, timeout);
}

Json McpClient::request(const std::string& method, const std::optional<Json>& params,
                        std::optional<milliseconds> timeout) {
  return await_response(send_request(method, params), timeout);
}

Json McpClient::request_result(const std::string& method, const std::optional<Json>& params,
                               std::optional<milliseconds> timeout) {
  Json response = request(method, params, timeout);
  if (!response.contains("result")) {
    fail(method + " answered with an error: " + response.dump());
  }
  return response["result"];
}

void McpClient::notify(const std::string& method, const std::optional<Json>& params) {
  Json message = {{"jsonrpc", "2.0"}, {"method", method}};
  if (params) message["params"] = *params;
  send(message);
}

void McpClient::respond(const Json& id, const Json& result) {
  send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

std::vector<Json> McpClient::take_notifications() {
  std::vector<Json> taken;
  taken.swap(notifications_);
  return taken;
}

std::optional<Json> McpClient::wait_for_notification(const std::string& method,
                                                     milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    for (auto it = notifications_.begin(); it != notifications_.end(); ++it) {
      if ((*it)["method"] == method) {
        Json found = std::move(*it);
        notifications_.erase(it);
        return found;
      }
    }
    if (!pump(remaining(deadline)) && (eof_ || Clock::now() >= deadline)) return std::nullopt;
  }
}

Json McpClient::initialize(const InitializeOptions& options) {
  Json params = {{"protocolVersion", options.protocol_version},
                 {"capabilities", options.capabilities},
                 {"clientInfo", options.client_info}};
  Json result = request_result("initialize", params);
  if (options.send_initialized) notify("notifications/initialized");
  return result;
}

Json McpClient::list_tools(std::optional<milliseconds> timeout) {
  return request_result("tools/list", Json::object(), timeout);
}

Json McpClient::call_tool(const std::string& name, const Json& arguments,
                          std::optional<milliseconds> timeout,
                          const std::optional<Json>& progress_token) {
  Json params = {{"name", name}, {"arguments", arguments}};
  if (progress_token) params["_meta"] = {{"progressToken", *progress_token}};
  return request_result("tools/call", params, timeout);
}

Json McpClient::payload_of(const Json& tool_result) {
  if (tool_result.contains("structuredContent")) return tool_result["structuredContent"];
  const auto content = tool_result.find("content");
  if (content != tool_result.end() && content->is_array() && !content->empty()) {
    const Json& first = content->front();
    if (first.value("type", "") == "text") {
      const std::string text = first.value("text", "");
      Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      return parsed.is_discarded() ? Json(text) : parsed;
    }
  }
  return nullptr;
}

bool McpClient::is_error(const Json& tool_result) {
  return tool_result.value("isError", false);
}

std::optional<ExitStatus> McpClient::wait_for_exit(milliseconds timeout) {
  return process_->wait(timeout);
}

ExitStatus McpClient::close(milliseconds grace) { return process_->stop(grace); }

}  // namespace vc::test
