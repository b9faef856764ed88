// process_call.cpp — an extension request in, through `vc-exec-agent process-call`, a result out.
#include "vc_agent_channel/process_call.h"

#include <utility>

#include <vc-backend-1/vc_status.h>

#include "vc_agent_channel/exec_agent_program.h"

namespace vc::agent_channel {
namespace {

constexpr int kProtocol = 1;
// The call itself never waits longer than wait_ms and the 3 s a kill may take; past this the
// supervisor is taken for stuck.
constexpr std::int64_t kCallSlackMs = 20000;
// The answer carries at most max_bytes (1 MiB) of output, which JSON escaping may grow six-fold.
constexpr std::uint64_t kAnswerLimit = 8u << 20;
constexpr std::size_t kStderrKept = 4096;

nlohmann::json base_request(const char* op) {
  return nlohmann::json{{"protocol", kProtocol}, {"op", op}};
}

void add_from(nlohmann::json& agent, const std::optional<std::pair<std::int64_t, std::int64_t>>& from) {
  if (from) agent["from"] = nlohmann::json{{"stdout", from->first}, {"stderr", from->second}};
}

std::string joined(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& arg : argv) text += (text.empty() ? "" : " ") + arg;
  return text;
}

// The agent's error answer as the extension's failure.
OpFailure failure_of(const nlohmann::json& error, CommandEnding& ending) {
  const std::string code = error.value("code", std::string("failed"));
  std::string message = error.value("message", std::string("The process supervisor failed."));
  if (code == "not_found") return OpFailure{VC_E_NOT_FOUND, std::move(message), nullptr};
  if (code == "invalid_argument") {
    return OpFailure{VC_E_INVALID_ARGUMENT, std::move(message), nullptr};
  }
  if (code == "process_limit" || code == "stdin_closed" || code == "input_backlog") {
    return OpFailure{VC_E_FAILED, std::move(message), ending.error_details(code)};
  }
  return OpFailure{VC_E_FAILED, std::move(message), ending.error_details("process_supervisor")};
}

// What the call printed, and how it ended, to the extension's result.
Expected<nlohmann::json> conclude(const std::string& computer_id, const nlohmann::json& exec,
                                  const std::string& out, const std::string& err,
                                  CommandEnding& ending, bool listing) {
  const std::int64_t exit_code = exec.value("exit_code", std::int64_t{-1});
  const std::string outcome = exec.value("outcome", std::string());
  auto answer = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (outcome == "exited" && (exit_code == 0 || exit_code == 1) && answer.is_object()) {
    if (exit_code == 1 && answer.contains("error") && answer["error"].is_object()) {
      return failure_of(answer["error"], ending);
    }
    if (exit_code == 0) {
      if (listing) answer["computer_id"] = computer_id;
      return answer;
    }
  }
  std::string why = outcome == "timed_out" ? "it did not answer in time"
                    : outcome == "output_limit_exceeded"
                        ? "its answer was too long"
                        : "it ended with status " + std::to_string(exit_code);
  if (!err.empty()) why += ": " + err;
  return OpFailure{VC_E_FAILED,
                   "The process supervisor of computer " + computer_id + " failed (" + why + ").",
                   ending.error_details("process_supervisor")};
}

// Collects the answer and the call's stderr while the session runs, then concludes.
class ProcessCall : public std::enable_shared_from_this<ProcessCall> {
 public:
  ProcessCall(std::string computer_id, std::unique_ptr<CommandEnding> ending, bool listing,
              Callback<nlohmann::json> done)
      : computer_id_(std::move(computer_id)),
        ending_(std::move(ending)),
        listing_(listing),
        done_(std::move(done)) {}

  vc_status take(vc_stream stream, std::string_view bytes) {
    if (stream == VC_STREAM_STDOUT) {
      out_.append(bytes);
    } else if (err_.size() < kStderrKept) {
      err_.append(bytes.substr(0, kStderrKept - err_.size()));
    }
    return VC_OK;
  }

  void finish(Expected<nlohmann::json> exec) {
    if (!exec.ok()) return done_(exec.error());
    done_(conclude(computer_id_, exec.value(), out_, err_, *ending_, listing_));
  }

 private:
  std::string computer_id_;
  std::unique_ptr<CommandEnding> ending_;
  bool listing_;
  Callback<nlohmann::json> done_;
  std::string out_;
  std::string err_;
};

}  // namespace

nlohmann::json agent_start_request(const sdk::ProcessStartRequest& request, const std::string& shell) {
  nlohmann::json agent = base_request("start");
  agent["argv"] = request.resolved_argv(shell);
  agent["command"] = request.command ? *request.command : joined(request.argv);
  if (request.working_directory) agent["cwd"] = *request.working_directory;
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [name, value] : request.env) env[name] = value;
  agent["env"] = std::move(env);
  agent["pty"] = request.pty;
  agent["rows"] = request.rows;
  agent["cols"] = request.cols;
  agent["wait_ms"] = request.wait_ms;
  agent["max_bytes"] = request.max_bytes;
  return agent;
}

nlohmann::json agent_read_request(const sdk::ProcessReadRequest& request) {
  nlohmann::json agent = base_request("read");
  agent["process_id"] = request.process_id;
  agent["wait_ms"] = request.wait_ms;
  agent["max_bytes"] = request.max_bytes;
  add_from(agent, request.from);
  return agent;
}

nlohmann::json agent_write_request(const sdk::ProcessWriteRequest& request) {
  nlohmann::json agent = base_request("write");
  agent["process_id"] = request.process_id;
  agent["input"] = request.input;
  agent["close_stdin"] = request.close_stdin;
  agent["wait_ms"] = request.wait_ms;
  agent["max_bytes"] = request.max_bytes;
  add_from(agent, request.from);
  return agent;
}

nlohmann::json agent_kill_request(const sdk::ProcessKillRequest& request) {
  nlohmann::json agent = base_request("kill");
  agent["process_id"] = request.process_id;
  agent["signal"] = request.signal;
  add_from(agent, request.from);
  return agent;
}

nlohmann::json agent_list_request() { return base_request("list"); }

std::shared_ptr<RunningCommand> run_process_call(ChannelClock& clock, sdk::HostLog log,
                                                 std::shared_ptr<ExecAgentChannel> channel,
                                                 const CommandEndingFactory& ending,
                                                 const std::string& computer_id,
                                                 nlohmann::json agent_request,
                                                 Callback<nlohmann::json> done) {
  const bool listing = agent_request.value("op", std::string()) == "list";
  sdk::ExecRequest exec;
  exec.computer_id = computer_id;
  exec.argv = {kExecAgentPathInComputer, "process-call"};
  exec.timeout_ms = agent_request.value("wait_ms", std::int64_t{0}) + kCallSlackMs;
  exec.output_limit = kAnswerLimit;
  auto call = std::make_shared<ProcessCall>(computer_id, ending(), listing, std::move(done));
  auto session = std::make_shared<AgentExecSession>(
      clock, std::move(log), std::move(channel), ending(),
      std::move(exec), std::string("/bin/sh"),
      agent_request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      [call](vc_stream stream, std::string_view bytes) { return call->take(stream, bytes); },
      [call](Expected<nlohmann::json> outcome) { call->finish(std::move(outcome)); });
  session->start();
  return session;
}

}  // namespace vc::agent_channel
