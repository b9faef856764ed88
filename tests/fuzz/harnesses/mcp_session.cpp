// mcp_session — what a client writes on stdio, cut into lines by the transport's LineSplitter
// (2 KiB lines, so the oversized-line reply is reachable) and handed one by one to a real
// mcp::Session serving the real tool catalog (every tool, the lifecycle tools too) over a
// computer whose backend completes every operation on a later loop turn; resources, prompts
// and completion answer from the conformance catalog, and one stand-in tool asks the client
// something, so that responses from the client have a request to answer (in a 2026-07-28
// request it asks with an input-required result, whose sealed state the next round opens).
// A task store serves the tasks extension: a long command or computer_create from a request
// that declares it goes on as a task, which tasks/get, tasks/update and tasks/cancel reach. After each line (or
// each few, see below) the loop runs until nothing is queued; lines past the 128th are
// dropped. Every input gets a fresh session, computer and loop.
//
// Input: when it starts with '{' it is the client's lines as they are, so the session starts
// uninitialized. Otherwise its first byte chooses the protocol version (bits 0-1; 3 is one the
// server does not speak), tools/list pages of 4 tools (bit 2), client capabilities (bit 3)
// and how many lines arrive before the loop runs (bits 4-5: 1 to 4, so that a cancellation or
// a repeated id can meet a call still in flight); a fixed initialize and
// notifications/initialized are sent first, and the rest is the client's lines.
//
// Beyond "no crash, no leak": every message the session sends is well-formed JSON-RPC (a
// request or notification with a method, or a response with an id and exactly one of result
// and error {code, message}), serializes to one line, and no request is answered more often
// than the client sent its id. Afterwards every handle is closed and the loop closes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "fuzz_tool_fixture.h"
#include "mcp/jsonrpc.h"
#include "mcp/session.h"
#include "transport/line_splitter.h"

namespace {

using vc::Json;
namespace jsonrpc = vc::mcp::jsonrpc;

constexpr size_t kMaxLineBytes = 2048;
constexpr size_t kMaxLines = 128;

// The real tools never ask the client anything (only the conformance fixtures do).
class AskClientTool final : public vc::mcp::Tool {
 public:
  AskClientTool() {
    definition_.name = "ask_client";
    definition_.description = "Asks the client.";
    definition_.input_schema = Json::parse(R"({"type":"object","properties":{
        "method":{"type":"string","enum":["sampling/createMessage","elicitation/create"]}}})");
  }
  const vc::mcp::ToolDefinition& definition() const override { return definition_; }
  void call(std::shared_ptr<vc::mcp::ToolCall> call) override {
    const std::string method = call->arguments().value("method", "sampling/createMessage");
    if (call->asks_with_input_required()) {
      // A 2026 request asks by its result; the next round brings answers and the state back.
      if (call->input_responses().is_object()) {
        return call->finish(vc::mcp::ToolResult::from_payload(
            Json{{"answers", call->input_responses()}, {"state", call->request_state()}}, false));
      }
      return call->finish(vc::mcp::ToolResult::input_required(
          Json{{"q", {{"method", method}, {"params", Json::object()}}}}, Json{{"round", 1}}));
    }
    call->request_client(method, Json{{"messages", Json::array()}, {"maxTokens", 16}},
                         [call](vc::Expected<Json> answer) {
                           call->finish(vc::mcp::ToolResult::from_payload(
                               answer ? answer.value() : Json{{"error", answer.error().message}},
                               !answer));
                         });
  }

 private:
  vc::mcp::ToolDefinition definition_;
};

bool is_error_object(const Json& error) {
  if (!error.is_object()) return false;
  const auto code = error.find("code");
  const auto message = error.find("message");
  return code != error.end() && code->is_number_integer() && message != error.end() &&
         message->is_string();
}

bool well_formed(const Json& message) {
  if (!message.is_object() || message.value("jsonrpc", Json()) != "2.0") return false;
  const auto id = message.find("id");
  const auto method = message.find("method");
  if (method != message.end()) {
    return method->is_string() && (id == message.end() || jsonrpc::is_valid_id(*id));
  }
  if (id == message.end() || !(id->is_null() || jsonrpc::is_valid_id(*id))) return false;
  const auto result = message.find("result");
  const auto error = message.find("error");
  if ((result != message.end()) == (error != message.end())) return false;
  return error == message.end() || is_error_object(*error);
}

// Which ids the client sent and how often the session answered each.
class Ledger {
 public:
  void asked(std::string_view line) {
    auto parsed = jsonrpc::parse(line);
    if (!parsed || !parsed.value().is_object()) return;
    const auto id = parsed.value().find("id");
    if (id != parsed.value().end() && jsonrpc::is_valid_id(*id)) ++asked_[id->dump()];
  }

  void sent(const Json& message) {
    if (!well_formed(message)) __builtin_trap();
    if (jsonrpc::serialize(message).find('\n') != std::string::npos) __builtin_trap();  // one line
    if (message.contains("method")) return;  // a request or notification of the server's
    const Json& id = message["id"];
    if (id.is_null()) return;
    const std::string key = id.dump();
    if (++answered_[key] > asked_[key]) __builtin_trap();
  }

 private:
  std::map<std::string, size_t> asked_;
  std::map<std::string, size_t> answered_;
};

std::string initialize_line(uint8_t mode) {
  static const char* const kVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  Json capabilities = Json::object();
  if (mode & 8) capabilities = Json{{"sampling", Json::object()}, {"elicitation", Json::object()}};
  return jsonrpc::serialize(Json{{"jsonrpc", "2.0"},
                                 {"id", "init"},
                                 {"method", "initialize"},
                                 {"params",
                                  {{"protocolVersion", kVersions[mode & 3]},
                                   {"capabilities", capabilities},
                                   {"clientInfo", {{"name", "fuzz"}, {"version", "1"}}}}}});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vc::fuzz::silence_logging();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const bool raw = !input.empty() && input.front() == '{';
  const uint8_t mode = input.empty() || raw ? 0 : static_cast<uint8_t>(input.front());
  if (!raw && !input.empty()) input.remove_prefix(1);

  uv_loop_t loop;
  if (uv_loop_init(&loop) != 0) __builtin_trap();
  {
    vc::fuzz::ToolFixture fixture(&loop);
    AskClientTool ask;
    std::vector<vc::mcp::Tool*> tools = fixture.borrowed();
    tools.push_back(&ask);
    vc::mcp::TaskStore tasks;  // 2026 requests that declare the tasks extension get tasks
    vc::mcp::SessionOptions options;
    options.server_version = "fuzz";
    options.tasks = &tasks;
    options.catalog = fixture.catalog.get();
    if (mode & 4) options.tools_page_size = 4;
    Ledger ledger;
    auto session = std::make_unique<vc::mcp::Session>(
        tools, options, [&ledger](const Json& message, const Json&) { ledger.sent(message); });

    const size_t burst = 1 + ((mode >> 4) & 3);
    size_t lines = 0;
    auto deliver = [&](std::string_view line) {
      ledger.asked(line);
      session->receive_line(line);
      if (++lines % burst == 0) fixture.settle();
    };
    if (!raw) {
      const std::string initialize = initialize_line(mode);
      ledger.asked(initialize);
      session->receive_line(initialize);
      session->receive_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    }
    vc::transport::LineSplitter splitter(
        kMaxLineBytes,
        [&](std::string_view line) {
          if (lines < kMaxLines) deliver(line);
        },
        [&] { session->reject_unreadable_line("message larger than 2 KiB"); });
    splitter.feed(input);
    splitter.finish();
    fixture.settle();

    session.reset();  // cancels what is still in flight; nothing more may be sent
    tasks.cancel_all();  // and what went on as tasks, as a server's shutdown does
    fixture.settle();
  }
  if (uv_loop_close(&loop) != 0) __builtin_trap();  // a handle outlived its owner
  return 0;
}
