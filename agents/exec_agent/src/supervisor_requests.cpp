// supervisor_requests.cpp — what the supervisor does with each request, and when a held
// request is answered (supervisor.h; the requests and answers: docs/processes.md).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <nlohmann/json.hpp>
#include <variant>

#include "log.h"
#include "spawn.h"
#include "supervisor.h"
#include "terminal_spawn.h"

namespace vc::exec_agent {
namespace {

using nlohmann::json;

std::string serialise_answer(const json& body) {
  // Output is valid UTF-8 by construction (utf8_text.h); replace rather than throw anyway, so
  // that an answer can always be sent.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Signals that end a process unless it handles them: a kill with one of these waits for the
// end. The others (STOP, CONT, WINCH, and the like) are answered at once.
bool usually_ends_the_process(int signal_number) {
  switch (signal_number) {
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
    case SIGCONT:
    case SIGCHLD:
    case SIGWINCH:
    case SIGURG: return false;
    default: return true;
  }
}

// The output of `process` for one answer: at most `max_bytes` across the two streams, shared
// fairly when both have more than half; from the shared cursor (which moves on) or from the
// positions given (which moves nothing).
json take_output(ManagedProcess& process, std::size_t max_bytes,
                 const std::optional<std::pair<std::uint64_t, std::uint64_t>>& from) {
  // Small budgets still fit a whole character of each stream.
  const std::size_t budget = std::max<std::size_t>(max_bytes, 8);
  OutputStream& out = process.stream(StreamId::kStdout);
  OutputStream& err = process.stream(StreamId::kStderr);
  const std::uint64_t out_from = from ? from->first : out.cursor();
  const std::uint64_t err_from = from ? from->second : err.cursor();
  const std::uint64_t out_waiting = out.readable_end() - std::min(out_from, out.readable_end());
  const std::uint64_t err_waiting = err.readable_end() - std::min(err_from, err.readable_end());
  const std::size_t half = budget / 2;
  const std::size_t out_share =
      out_waiting <= half ? static_cast<std::size_t>(out_waiting)
                          : budget - static_cast<std::size_t>(std::min<std::uint64_t>(err_waiting, half));
  const std::size_t err_share = budget - out_share;

  OutputStream::Piece out_piece = out.take(out_from, out_share);
  OutputStream::Piece err_piece = err.take(err_from, err_share);
  if (!from) {
    out.move_cursor(out_piece.end);
    err.move_cursor(err_piece.end);
  }
  return {{"stdout", std::move(out_piece.text)},
          {"stderr", std::move(err_piece.text)},
          {"stdout_dropped", out_piece.dropped},
          {"stderr_dropped", err_piece.dropped},
          {"stdout_offset", out_piece.end},
          {"stderr_offset", err_piece.end},
          {"more", out_piece.more || err_piece.more}};
}

}  // namespace

void Supervisor::handle_request(SupervisorClient& client, std::string_view body, Millis now) {
  ParsedProcessRequest parsed = parse_process_request(body);
  if (!parsed.request) return answer_error(client, "invalid_argument", parsed.error);
  const ProcessRequest& request = *parsed.request;
  try {
    switch (request.op) {
      case RequestOp::kStart: return start_process(client, request, now);
      case RequestOp::kRead:
        if (find_process(request.process_id) == nullptr) {
          return answer_unknown_process(client, request.process_id);
        }
        return hold(client, request, now);
      case RequestOp::kWrite: return write_to_process(client, request, now);
      case RequestOp::kKill: return kill_process(client, request, now);
      case RequestOp::kList: return list_processes(client);
    }
  } catch (const std::exception& error) {
    // Nothing a client sends may end the supervisor; memory running out is the likely cause.
    log_line("a request failed: %s", error.what());
    client.held.reset();
    answer_error(client, "failed", std::string("the supervisor could not do it: ") + error.what());
  }
}

void Supervisor::start_process(SupervisorClient& client, const ProcessRequest& request,
                               Millis now) {
  if (running_count() >= kMaxRunningProcesses) {
    return answer_error(client, "process_limit",
                        "This computer already runs " + std::to_string(kMaxRunningProcesses) +
                            " processes, the most it holds at once. End one with process_kill "
                            "first.");
  }
  StartRequest start;
  start.argv = request.argv;
  start.cwd = request.cwd.value_or(default_working_directory_);
  start.env = request.env;
  start.stdin_open = true;
  if (const auto failure = check_working_directory(*start.cwd)) {
    if (failure->error_code == "cwd_missing") {
      return answer_error(client, "invalid_argument",
                          "Working directory '" + *start.cwd + "' does not exist.");
    }
    return answer_error(client, "invalid_argument",
                        "Working directory " + failure->error + " (it cannot be used).");
  }

  std::uint64_t number = 0;
  std::string error;
  if (!take_next_number(number, error)) return answer_error(client, "failed", error);
  const std::string folder = process_folder(state_dir_, number);
  if (mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) {
    return answer_error(client, "failed",
                        "cannot create '" + folder + "': " + std::string(std::strerror(errno)));
  }

  ProcessRecord record;
  record.number = number;
  record.command = request.command;
  record.argv = request.argv;
  record.working_directory = *start.cwd;
  record.pty = request.pty;
  record.instance = instance_;
  record.boot_id = boot_id_;
  record.started = rfc3339_now();

  std::unique_ptr<ManagedProcess> process;
  if (request.pty) {
    auto spawned = spawn_in_terminal(start, TerminalSize{request.rows, request.cols});
    if (const auto* failure = std::get_if<std::string>(&spawned)) {
      return answer_error(client, "failed", *failure);
    }
    const auto& child = std::get<TerminalChild>(spawned);
    record.pid = child.pid;
    process = std::make_unique<ManagedProcess>(std::move(record), child.input_fd, child.output_fd, -1);
  } else {
    auto spawned = spawn_command(start);
    if (const auto* failure = std::get_if<StartFailure>(&spawned)) {
      return answer_error(client, "failed", failure->error);
    }
    const auto& child = std::get<SpawnedChild>(spawned);
    record.pid = child.pid;
    process = std::make_unique<ManagedProcess>(std::move(record), child.stdin_fd, child.stdout_fd,
                                               child.stderr_fd);
  }
  const pid_t pid = process->record().pid;
  killer_.forget(pid);  // a pending KILL for an earlier group of that id must not fall on it
  process->record().pid_start_ticks = process_start_ticks(pid);
  if (std::string log_error = process->open_logs(state_dir_); !log_error.empty()) {
    log_line("%s: %s; its output is kept in memory only", process->id().c_str(), log_error.c_str());
  }
  save(*process);
  log_line("%s started: pid %d%s", process->id().c_str(), static_cast<int>(pid),
           request.pty ? ", in a terminal" : "");
  ProcessRequest held = request;
  held.process_id = process->id();
  processes_.push_back(std::move(process));
  hold(client, held, now);
}

void Supervisor::write_to_process(SupervisorClient& client, const ProcessRequest& request,
                                  Millis now) {
  ManagedProcess* process = find_process(request.process_id);
  if (process == nullptr) return answer_unknown_process(client, request.process_id);
  if (const auto refusal = process->take_input(request.input, request.close_stdin)) {
    return answer_error(client, refusal->code, refusal->message);
  }
  hold(client, request, now);
}

void Supervisor::kill_process(SupervisorClient& client, const ProcessRequest& request, Millis now) {
  ManagedProcess* process = find_process(request.process_id);
  if (process == nullptr) return answer_unknown_process(client, request.process_id);
  const pid_t group = process->record().pid;
  // After its own process ended, the group id is only signalled while members of the group
  // remain: a group id without members could be taken by an unrelated group.
  const bool reachable = process->running() ||
                         (process->record().state == ProcessState::kExited &&
                          process_group_exists(group));
  if (reachable) {
    log_line("%s: signal %s to process group %d", process->id().c_str(),
             signal_name(request.signal).c_str(), static_cast<int>(group));
    if (request.signal == SIGTERM) {
      killer_.terminate(group, now, kTermGraceMs);
    } else {
      kill(-group, request.signal);
    }
  }
  ProcessRequest held = request;
  held.wait_ms = reachable && usually_ends_the_process(request.signal) ? kKillAnswerWaitMs : 0;
  hold(client, held, now);
}

void Supervisor::list_processes(SupervisorClient& client) {
  json processes = json::array();
  for (const auto& process : processes_) {
    processes.push_back(process_info_json(state_dir_, process->record()));
  }
  answer(client, serialise_answer({{"processes", std::move(processes)}}));
}

void Supervisor::hold(SupervisorClient& client, const ProcessRequest& request, Millis now) {
  client.held = request;
  client.answer_by = now + request.wait_ms;
  client.gather_until.reset();
  client.quiet_until.reset();
  answer_held_requests(now);
}

void Supervisor::answer_held_requests(Millis now) {
  for (const auto& client : clients_) {
    if (!client->held || client->done) continue;
    ManagedProcess* process = find_process(client->held->process_id);
    if (process == nullptr) {
      // Forgotten while the request was held (it ended, and 64 others after it).
      const std::string process_id = client->held->process_id;
      client->held.reset();
      answer_unknown_process(*client, process_id);
      continue;
    }
    if (!ready_to_answer(*client, *process, now)) continue;
    const ProcessRequest request = std::move(*client->held);
    client->held.reset();
    answer_with_output(*client, request, *process);
  }
}

bool Supervisor::ready_to_answer(SupervisorClient& client, ManagedProcess& process, Millis now) {
  const ProcessRequest& request = *client.held;
  if (now >= client.answer_by) return true;
  switch (request.op) {
    case RequestOp::kStart: return process.settled(now);
    case RequestOp::kKill:
      return process.settled(now) && !process_group_exists(process.record().pid);
    default: break;
  }
  if (process.settled(now)) return true;
  const OutputStream& out = process.stream(StreamId::kStdout);
  const OutputStream& err = process.stream(StreamId::kStderr);
  const bool news = request.from ? out.has_news_from(request.from->first) ||
                                       err.has_news_from(request.from->second)
                                 : out.has_news_from(out.cursor()) || err.has_news_from(err.cursor());
  if (!news) return false;
  // The first output of a burst: a little longer, so that a burst comes in one answer, unless
  // the process has gone quiet.
  if (!client.gather_until) client.gather_until = std::min(now + kGatherBurstMs, client.answer_by);
  client.quiet_until = process.last_output_at() + kQuietGapMs;
  return now >= *client.gather_until || now >= *client.quiet_until;
}

void Supervisor::answer_with_output(SupervisorClient& client, const ProcessRequest& request,
                                    ManagedProcess& process) {
  const std::size_t max_bytes = request.op == RequestOp::kKill ? kDefaultMaxBytes : request.max_bytes;
  json output = take_output(process, max_bytes, request.from);
  answer(client, serialise_answer({{"process", process_info_json(state_dir_, process.record())},
                                   {"output", std::move(output)}}));
}

void Supervisor::answer(SupervisorClient& client, const std::string& body) {
  client.answer = encode_message(body);
  client.answer_sent = 0;
  write_answer(client);
}

void Supervisor::answer_error(SupervisorClient& client, const std::string& code,
                              const std::string& message) {
  answer(client, serialise_answer({{"error", {{"code", code}, {"message", message}}}}));
}

void Supervisor::answer_unknown_process(SupervisorClient& client, const std::string& process_id) {
  answer_error(client, "not_found",
               "No process '" + process_id +
                   "' in this computer. process_list shows the ones it holds.");
}

}  // namespace vc::exec_agent
