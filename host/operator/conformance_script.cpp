// conformance_script.cpp — see conformance_script.h. Each step starts one operation (or a
// short sequence) and calls next() from its completion, so the steps run strictly in order.
#include "operator/conformance_script.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "common/uv_handles.h"
#include "computers/computer_settings.h"
#include "computers/operation_documents.h"
#include "operator/conformance_expectations.h"

namespace vc::operator_cli {
namespace {

using backend_proxy::Operation;
using computers::ExecOutcome;

constexpr const char* kNotDeclared = "skipped (not declared)";
// The timeout the timed_out check gives its command.
constexpr uint64_t kShortTimeoutMs = 1000;
// The output limit of the output_limit_exceeded check.
constexpr uint64_t kSmallOutputLimit = 4096;
// How long the cancel check lets the command run before cancelling it, and how long the
// plugin then has to complete the op ("promptly").
constexpr uint64_t kCancelAfterMs = 500;
constexpr uint64_t kCancelGraceMs = 10000;

// Bytes that survive no text conversion: a control character and an invalid UTF-8 byte.
constexpr std::string_view kStdoutBytes = "vc-out:\x01\xff:end\n";
constexpr std::string_view kStderrBytes = "vc-err:\x02\xfe:end\n";
constexpr std::string_view kStdinBytes = "vc-in:\x03\xfd:end\n";
// printf(1) commands that write kStdoutBytes and kStderrBytes.
constexpr const char* kStreamsCommand =
    "printf 'vc-out:\\001\\377:end\\n'; printf 'vc-err:\\002\\376:end\\n' >&2";

constexpr OpRequirement kRequired(const char* op) { return OpRequirement{op, 0, nullptr}; }

constexpr const char* kNoCheckpoints = "skipped (no checkpoints extension)";
// A name the checkpoint rule refuses: a path and a blank, which no engine tag may hold.
constexpr const char* kMalformedCheckpointName = "../not a name";
constexpr const char* kNoProcesses = "skipped (no processes extension)";
// A process id the rule refuses: ids count from p1.
constexpr const char* kMalformedProcessId = "p0";

std::string failure_text(const Failure& failure) { return failure.message; }

// "0.4 ms", "12 ms", "1500 ms".
std::string format_milliseconds(uint64_t microseconds) {
  if (microseconds >= 10'000) return std::to_string(microseconds / 1000) + " ms";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(microseconds) / 1000.0);
  return text;
}

}  // namespace

ConformanceScript::ConformanceScript(uv_loop_t* loop,
                                     std::shared_ptr<backend_proxy::Backend> backend,
                                     std::shared_ptr<MisbehaviourLog> log, ScriptSettings settings,
                                     PluginCheckReport& report)
    : loop_(loop),
      backend_(std::move(backend)),
      log_(std::move(log)),
      settings_(std::move(settings)),
      report_(report),
      probe_(loop_, backend_, log_, settings_.op_timeout_ms),
      caps_(backend_->info().capabilities) {
  steps_ = {&ConformanceScript::step_validate,        &ConformanceScript::step_ensure_image,
            &ConformanceScript::step_create,
            &ConformanceScript::step_attach,          &ConformanceScript::step_list,
            &ConformanceScript::step_checkpoints_table, &ConformanceScript::step_list_checkpoints,
            &ConformanceScript::step_checkpoint_name_refused,
            &ConformanceScript::step_processes_table, &ConformanceScript::step_list_processes,
            &ConformanceScript::step_process_id_refused,
            &ConformanceScript::step_exec_exit_zero,  &ConformanceScript::step_exec_exit_code,
            &ConformanceScript::step_exec_streams,    &ConformanceScript::step_exec_timeout,
            &ConformanceScript::step_exec_output_limit, &ConformanceScript::step_exec_stdin,
            &ConformanceScript::step_exec_cancel,     &ConformanceScript::step_restart,
            &ConformanceScript::step_factory_reset,   &ConformanceScript::step_network_access,
            &ConformanceScript::step_wait_for_death,  &ConformanceScript::step_remove,
            &ConformanceScript::step_list_after_remove, &ConformanceScript::step_remove_again,
            &ConformanceScript::step_tool_instructions, &ConformanceScript::step_contract};
}

void ConformanceScript::start(std::function<void()> done) {
  done_ = std::move(done);
  next();
}

void ConformanceScript::interrupt(const std::string& why) {
  if (!aborted_) aborted_ = why;
  if (running_) running_->cancel();
}

CancelHandle ConformanceScript::run_op(Operation op, const Json& request, ProbeOptions options,
                                       std::function<void(ProbeResult)> done) {
  running_ = probe_.run(op, request, std::move(options), std::move(done));
  return running_;
}

void ConformanceScript::next() {
  if (next_step_ >= steps_.size()) {
    if (done_) std::exchange(done_, nullptr)();
    return;
  }
  const Step step = steps_[next_step_++];
  (this->*step)();
}

void ConformanceScript::after(uint64_t ms, std::function<void()> fn) {
  auto* timer = new uv_timer_t;
  uv_timer_init(loop_, timer);
  timer->data = new std::function<void()>(std::move(fn));
  uv_timer_start(
      timer,
      [](uv_timer_t* fired) {
        auto* owned = static_cast<std::function<void()>*>(fired->data);
        std::function<void()> run = std::move(*owned);
        delete owned;
        close_and_delete(fired);
        run();
      },
      ms, 0);
}

bool ConformanceScript::declared(vc_caps capability) const { return (caps_ & capability) != 0; }

bool ConformanceScript::skipped_after_abort(const char* name) {
  if (!aborted_) return false;
  report_.skip(name, "skipped: " + *aborted_);
  next();
  return true;
}

void ConformanceScript::exec(const std::string& command, ProbeOptions options,
                             uint64_t timeout_ms, ExecDone done) {
  Json request{{"computer_id", settings_.computer_id},
               {"command", command},
               {"shell", settings_.shell},
               {"timeout_ms", timeout_ms},
               {"output_limit", options.output_limit}};
  run_op(Operation::exec, request, std::move(options),
             [done = std::move(done)](ProbeResult probe) {
               const auto completion = exec_completion(probe);
               done(probe, completion);
             });
}

void ConformanceScript::step_validate() {
  run_op(Operation::validate, Json::object(), {}, [this](ProbeResult probe) {
    if (auto problem = op_problem(probe, kRequired("validate"))) {
      report_.fail("op.validate", *problem);
      aborted_ = "validate failed";
    } else {
      const Json& result = probe.result.value();
      auto engine = result.find("engine");
      if (engine == result.end() || !engine->is_string()) {
        report_.fail("op.validate", "the result has no \"engine\" string");
      } else {
        report_.pass("op.validate", "engine " + engine->get<std::string>());
      }
    }
    next();
  });
}

// Only with VC_CAP_IMAGES: without it the server does not need it to do anything.
void ConformanceScript::step_ensure_image() {
  if (skipped_after_abort("op.ensure_image")) return;
  if (!declared(VC_CAP_IMAGES)) {
    report_.skip("op.ensure_image", kNotDeclared);
    return next();
  }
  run_op(Operation::ensure_image, Json::object(), {}, [this](ProbeResult probe) {
    if (auto problem = op_problem(probe, {"ensure_image", VC_CAP_IMAGES, "VC_CAP_IMAGES"})) {
      report_.fail("op.ensure_image", *problem);
      aborted_ = "ensure_image failed";
      return next();
    }
    const Json& result = probe.result.value();
    const Json image = result.value("image", Json());
    const Json action = result.value("action", Json());
    if (!image.is_string() || !action.is_string() ||
        (action != "present" && action != "pulled" && action != "built")) {
      report_.fail("op.ensure_image",
                   "the result needs an \"image\" string and an \"action\" of present, pulled "
                   "or built; got " + result.dump());
    } else {
      report_.pass("op.ensure_image",
                   image.get<std::string>() + " " + action.get<std::string>());
    }
    next();
  });
}

void ConformanceScript::step_create() {
  if (skipped_after_abort("op.create")) return;
  computers::ComputerSettings computer;
  computer.computer_id = settings_.computer_id;
  computer.shell = settings_.shell;
  create_attempted_ = true;
  run_op(Operation::create, computers::create_request(computer), {},
             [this](ProbeResult probe) {
               if (auto problem = op_problem(probe, kRequired("create"))) {
                 report_.fail("op.create", *problem);
                 aborted_ = "create failed";
               } else if (auto info = computer_info_for(probe, settings_.computer_id); !info) {
                 report_.fail("op.create", failure_text(info.error()));
               } else {
                 report_.pass("op.create", "computer " + settings_.computer_id + " (sandbox " +
                                               info.value().sandbox_id + ")");
               }
               next();
             });
}

void ConformanceScript::step_attach() {
  if (skipped_after_abort("op.attach")) return;
  computers::ComputerSettings computer;
  computer.computer_id = settings_.computer_id;
  computer.shell = settings_.shell;
  run_op(Operation::attach, computers::attach_request(computer), {},
             [this](ProbeResult probe) {
               if (auto problem = op_problem(probe, kRequired("attach"))) {
                 report_.fail("op.attach", *problem);
               } else if (auto info = computer_info_for(probe, settings_.computer_id); !info) {
                 report_.fail("op.attach", failure_text(info.error()));
               } else {
                 report_.pass("op.attach");
               }
               next();
             });
}

void ConformanceScript::step_list() {
  if (skipped_after_abort("op.list")) return;
  run_op(Operation::list, Json::object(), {}, [this](ProbeResult probe) {
    if (auto problem = op_problem(probe, kRequired("list"))) {
      report_.fail("op.list", *problem);
    } else if (auto found = listing_contains(probe, settings_.computer_id); !found) {
      report_.fail("op.list", failure_text(found.error()));
    } else if (!found.value()) {
      report_.fail("op.list", "the new computer " + settings_.computer_id + " is not listed");
    } else {
      report_.pass("op.list", "the new computer is listed");
    }
    next();
  });
}

// The table needs no op: the instance read it when it was created.
void ConformanceScript::step_checkpoints_table() {
  const backend_proxy::ExtensionOffer offer = backend_->checkpoints_offer();
  if (!offer.returned) {
    report_.skip("extension.checkpoints", "no checkpoints extension (get_extension returns NULL)");
  } else if (auto problem = checkpoints_table_problem(offer)) {
    report_.fail("extension.checkpoints", *problem);
  } else {
    report_.pass("extension.checkpoints",
                 "struct_size " + std::to_string(offer.struct_size) + ", all five operations");
  }
  next();
}

// A computer just created has no checkpoints yet.
void ConformanceScript::step_list_checkpoints() {
  if (skipped_after_abort("op.list_checkpoints")) return;
  if (!backend_->offers_checkpoints()) {
    report_.skip("op.list_checkpoints", kNoCheckpoints);
    return next();
  }
  run_op(Operation::list_checkpoints, computers::computer_request(settings_.computer_id), {},
         [this](ProbeResult probe) {
           const OpRequirement requirement{"list_checkpoints", 0, "the checkpoints extension"};
           if (auto problem = op_problem(probe, requirement)) {
             report_.fail("op.list_checkpoints", *problem);
           } else if (auto listing = computers::read_checkpoint_listing(probe.result.value(),
                                                                        settings_.computer_id);
                      !listing) {
             report_.fail("op.list_checkpoints", failure_text(listing.error()));
           } else if (!listing.value().checkpoints.empty()) {
             report_.fail("op.list_checkpoints",
                          "a computer just created lists " +
                              std::to_string(listing.value().checkpoints.size()) +
                              " checkpoint(s); it has none yet");
           } else {
             report_.pass("op.list_checkpoints", "an empty list for the new computer");
           }
           next();
         });
}

// Names end up in engine tags and paths: a malformed one is refused before anything is done.
void ConformanceScript::step_checkpoint_name_refused() {
  if (skipped_after_abort("checkpoint.invalid-name")) return;
  if (!backend_->offers_checkpoints()) {
    report_.skip("checkpoint.invalid-name", kNoCheckpoints);
    return next();
  }
  run_op(Operation::create_checkpoint,
         computers::checkpoint_request(settings_.computer_id, kMalformedCheckpointName), {},
         [this](ProbeResult probe) {
           if (auto problem =
                   refusal_problem(probe, "create_checkpoint", VC_E_INVALID_ARGUMENT)) {
             report_.fail("checkpoint.invalid-name",
                          "with the name \"" + std::string(kMalformedCheckpointName) + "\": " +
                              *problem);
           } else {
             report_.pass("checkpoint.invalid-name", "a malformed name is refused");
           }
           next();
         });
}

// Like the checkpoints table, read when the instance was created.
void ConformanceScript::step_processes_table() {
  const backend_proxy::ExtensionOffer offer = backend_->processes_offer();
  if (!offer.returned) {
    report_.skip("extension.processes", "no processes extension (get_extension returns NULL)");
  } else if (auto problem = processes_table_problem(offer)) {
    report_.fail("extension.processes", *problem);
  } else {
    report_.pass("extension.processes",
                 "struct_size " + std::to_string(offer.struct_size) + ", all five operations");
  }
  next();
}

// The scratch computer's processes, read the way the host reads them.
void ConformanceScript::step_list_processes() {
  if (skipped_after_abort("op.list_processes")) return;
  if (!backend_->offers_processes()) {
    report_.skip("op.list_processes", kNoProcesses);
    return next();
  }
  run_op(Operation::list_processes, computers::computer_request(settings_.computer_id), {},
         [this](ProbeResult probe) {
           const OpRequirement requirement{"list_processes", 0, "the processes extension"};
           size_t count = 0;
           if (auto problem = op_problem(probe, requirement)) {
             report_.fail("op.list_processes", *problem);
           } else if (auto listing = process_listing_problem(probe.result.value(),
                                                             settings_.computer_id, &count)) {
             report_.fail("op.list_processes", *listing);
           } else {
             report_.pass("op.list_processes",
                          count == 0 ? std::string("an empty list for the new computer")
                                     : "a list of " + std::to_string(count) + " process(es)");
           }
           next();
         });
}

// A process id is checked before anything is looked up: "p0" is no id.
void ConformanceScript::step_process_id_refused() {
  if (skipped_after_abort("process.invalid-id")) return;
  if (!backend_->offers_processes()) {
    report_.skip("process.invalid-id", kNoProcesses);
    return next();
  }
  Json request = computers::computer_request(settings_.computer_id);
  request["process_id"] = kMalformedProcessId;
  request["wait_ms"] = 0;
  run_op(Operation::read_process, request, {}, [this](ProbeResult probe) {
    if (auto problem = refusal_problem(probe, "read_process", VC_E_INVALID_ARGUMENT)) {
      report_.fail("process.invalid-id", "with the process_id \"" +
                                             std::string(kMalformedProcessId) + "\": " + *problem);
    } else {
      report_.pass("process.invalid-id", "a malformed process id is refused");
    }
    next();
  });
}

void ConformanceScript::step_exec_exit_zero() { check_exit_code("exec.exit-zero", 0, ""); }

void ConformanceScript::step_exec_exit_code() {
  check_exit_code("exec.exit-code", 3, "exit code 3");
}

// `exit <code>` must end as exited with that exit code.
void ConformanceScript::check_exit_code(const char* check, int code, std::string pass_note) {
  if (skipped_after_abort(check)) return;
  const std::string command = "exit " + std::to_string(code);
  exec(command, {}, settings_.op_timeout_ms,
       [this, check, code, command, pass_note = std::move(pass_note)](const ProbeResult&,
                                                                       const auto& completion) {
         if (!completion) {
           report_.fail(check, failure_text(completion.error()));
         } else if (completion.value().outcome != ExecOutcome::exited ||
                    completion.value().exit_code != code) {
           report_.fail(check, "`" + command + "` gave outcome " +
                                   exec_outcome_name(completion.value().outcome) + ", exit code " +
                                   std::to_string(completion.value().exit_code) +
                                   " (expected exited, " + std::to_string(code) + ")");
         } else {
           report_.pass(check, pass_note);
         }
         next();
       });
}

// One command writes known bytes to both streams. A plugin that joins stderr to stdout (one
// pipe for both) passes with a note: the ABI does not promise two streams.
void ConformanceScript::step_exec_streams() {
  if (aborted_) {
    report_.skip("exec.stdout", "skipped: " + *aborted_);
    skipped_after_abort("exec.stderr");
    return;
  }
  exec(kStreamsCommand, {}, settings_.op_timeout_ms,
       [this](const ProbeResult& probe, const auto& completion) {
         if (!completion) {
           report_.fail("exec.stdout", failure_text(completion.error()));
           report_.fail("exec.stderr", failure_text(completion.error()));
           return next();
         }
         const std::string merged = std::string(kStdoutBytes) + std::string(kStderrBytes);
         const bool joined = probe.err.empty() && probe.out == merged;
         if (probe.out == kStdoutBytes || joined) {
           report_.pass("exec.stdout", "bytes intact");
         } else {
           report_.fail("exec.stdout", "expected " + visible_bytes(kStdoutBytes) + ", got " +
                                           visible_bytes(probe.out));
         }
         if (probe.err == kStderrBytes) {
           report_.pass("exec.stderr", "bytes intact");
         } else if (joined) {
           report_.pass("exec.stderr", "bytes intact, joined to stdout (one output stream)");
         } else {
           report_.fail("exec.stderr", "expected " + visible_bytes(kStderrBytes) + ", got " +
                                           visible_bytes(probe.err));
         }
         next();
       });
}

void ConformanceScript::step_exec_timeout() {
  if (skipped_after_abort("exec.timeout")) return;
  exec("sleep 60", {}, kShortTimeoutMs, [this](const ProbeResult& probe, const auto& completion) {
    if (!completion) {
      report_.fail("exec.timeout", failure_text(completion.error()));
    } else if (completion.value().outcome != ExecOutcome::timed_out) {
      report_.fail("exec.timeout", std::string("`sleep 60` with timeout_ms 1000 gave outcome ") +
                                       exec_outcome_name(completion.value().outcome) +
                                       " (expected timed_out)");
    } else {
      report_.pass("exec.timeout", "timed_out after " + std::to_string(probe.elapsed_ms) + " ms");
    }
    next();
  });
}

void ConformanceScript::step_exec_output_limit() {
  if (skipped_after_abort("exec.output-limit")) return;
  ProbeOptions options;
  options.output_limit = kSmallOutputLimit;
  // Endless output: only the limit ends it (or, when the plugin ignores it, the timeout).
  exec("while :; do echo 0123456789abcdef0123456789abcdef; done", options,
       settings_.op_timeout_ms / 2, [this](const ProbeResult& probe, const auto& completion) {
         const size_t delivered = probe.out.size() + probe.err.size();
         if (!completion) {
           report_.fail("exec.output-limit", failure_text(completion.error()));
         } else if (completion.value().outcome != ExecOutcome::output_limit_exceeded) {
           report_.fail("exec.output-limit",
                        std::string("endless output with output_limit 4096 gave outcome ") +
                            exec_outcome_name(completion.value().outcome) +
                            " (expected output_limit_exceeded)");
         } else if (delivered > kSmallOutputLimit) {
           report_.fail("exec.output-limit", std::to_string(delivered) +
                                                 " bytes delivered past the 4096-byte limit");
         } else {
           report_.pass("exec.output-limit", "output_limit_exceeded after " +
                                                 std::to_string(delivered) + " bytes");
         }
         next();
       });
}

void ConformanceScript::step_exec_stdin() {
  if (skipped_after_abort("exec.stdin")) return;
  if (!declared(VC_CAP_EXEC_STDIN)) {
    report_.skip("exec.stdin", kNotDeclared);
    return next();
  }
  ProbeOptions options;
  options.stdin_bytes = std::string(kStdinBytes);
  exec("cat", options, settings_.op_timeout_ms,
       [this](const ProbeResult& probe, const auto& completion) {
         if (!completion) {
           report_.fail("exec.stdin", failure_text(completion.error()));
         } else if (probe.out != kStdinBytes || completion.value().exit_code != 0) {
           report_.fail("exec.stdin", "`cat` given " + visible_bytes(kStdinBytes) +
                                          " printed " + visible_bytes(probe.out) + ", exit code " +
                                          std::to_string(completion.value().exit_code));
         } else {
           report_.pass("exec.stdin", "bytes intact");
         }
         next();
       });
}

// The command would run for a minute; cancelled after half a second it must complete, once,
// within the grace period, as VC_E_CANCELLED.
void ConformanceScript::step_exec_cancel() {
  if (skipped_after_abort("exec.cancel")) return;
  ProbeOptions options;
  options.deadline_ms = kCancelAfterMs + std::min(kCancelGraceMs, settings_.op_timeout_ms);
  auto cancel_at = std::make_shared<uint64_t>(0);
  Json request{{"computer_id", settings_.computer_id},
               {"command", "sleep 60"},
               {"shell", settings_.shell},
               {"timeout_ms", 120000},
               {"output_limit", 0}};
  CancelHandle handle = run_op(
      Operation::exec, request, std::move(options), [this, cancel_at](ProbeResult probe) {
        const uint64_t grace = std::min(kCancelGraceMs, settings_.op_timeout_ms);
        if (!probe.completed) {
          report_.fail("exec.cancel", "a cancelled exec did not complete within " +
                                          std::to_string(grace / 1000) + " s of the cancel");
        } else if (!probe.misbehaviours.empty()) {
          report_.fail("exec.cancel", *op_problem(probe, kRequired("exec")));
        } else if (probe.result) {
          report_.fail("exec.cancel", "completed with a result instead of VC_E_CANCELLED (the "
                                      "command was not stopped)");
        } else if (probe.result.error().status != VC_E_CANCELLED) {
          report_.fail("exec.cancel", "completed with " + *op_problem(probe, kRequired("exec")) +
                                          " instead of VC_E_CANCELLED");
        } else {
          report_.pass("exec.cancel", "cancelled " +
                                          std::to_string(probe.elapsed_ms - *cancel_at) +
                                          " ms after the request");
        }
        next();
      });
  after(kCancelAfterMs, [handle, cancel_at]() {
    *cancel_at = kCancelAfterMs;
    handle->cancel();
  });
}

// An operation that must leave the computer's files kept (restart: only checked when the
// descriptor declares PERSISTENT) or gone (factory_reset).
struct ConformanceScript::MarkerOpCheck {
  Operation operation;
  OpRequirement requirement;  // op_name is also the op's name in the report's texts
  const char* op_check;       // "op.restart"
  const char* files_check;    // "restart.keeps-files"
  const char* marker_file;    // written before the op, relative to the workspace
  const char* marker_text;
  bool expect_kept;
};

void ConformanceScript::step_restart() {
  step_marker_op({Operation::restart, {"restart", VC_CAP_RESTART, "VC_CAP_RESTART"},
                  "op.restart", "restart.keeps-files", "vc-validate-restart", "kept",
                  /*expect_kept=*/true});
}

void ConformanceScript::step_factory_reset() {
  step_marker_op({Operation::factory_reset,
                  {"factory_reset", VC_CAP_FACTORY_RESET, "VC_CAP_FACTORY_RESET"},
                  "op.factory_reset", "factory_reset.clears-files", "vc-validate-reset", "old",
                  /*expect_kept=*/false});
}

void ConformanceScript::step_marker_op(const MarkerOpCheck& check) {
  if (skipped_after_abort(check.op_check)) return;
  if (!declared(check.requirement.capability)) {
    report_.skip(check.op_check, kNotDeclared);
    report_.skip(check.files_check, kNotDeclared);
    return next();
  }
  const std::string op_name = check.requirement.op_name;
  exec("echo " + std::string(check.marker_text) + " > " + check.marker_file, {},
       settings_.op_timeout_ms,
       [this, check, op_name](const ProbeResult&, const auto& written) {
         const bool marker = written && written.value().exit_code == 0;
         run_op(
             check.operation, Json{{"computer_id", settings_.computer_id}}, {},
             [this, check, op_name, marker](ProbeResult probe) {
               if (auto problem = op_problem(probe, check.requirement)) {
                 report_.fail(check.op_check, *problem);
                 report_.skip(check.files_check, "skipped: " + op_name + " failed");
                 return next();
               }
               if (auto info = computer_info_for(probe, settings_.computer_id); !info) {
                 report_.fail(check.op_check, failure_text(info.error()));
               } else {
                 report_.pass(check.op_check);
               }
               if (check.expect_kept && !declared(VC_CAP_PERSISTENT)) {
                 report_.skip(check.files_check, "skipped (not PERSISTENT)");
                 return next();
               }
               if (!marker) {
                 report_.fail(check.files_check, "could not write a file before " + op_name);
                 return next();
               }
               // Kept: the file reads back as written. Gone: `test -e` fails.
               const std::string read_back =
                   std::string(check.expect_kept ? "cat " : "test -e ") + check.marker_file;
               exec(read_back, {}, settings_.op_timeout_ms,
                    [this, check, op_name](const ProbeResult& read, const auto& completion) {
                      if (check.expect_kept) {
                        if (completion && completion.value().exit_code == 0 &&
                            read.out == std::string(check.marker_text) + "\n") {
                          report_.pass(check.files_check);
                        } else {
                          report_.fail(check.files_check,
                                       "a file written before " + op_name + " is gone after it "
                                       "(the descriptor declares VC_CAP_PERSISTENT)");
                        }
                      } else if (!completion) {
                        report_.fail(check.files_check, failure_text(completion.error()));
                      } else if (completion.value().exit_code == 0) {
                        report_.fail(check.files_check,
                                     "a file written before " + op_name + " is still there");
                      } else {
                        report_.pass(check.files_check);
                      }
                      next();
                    });
             });
       });
}

// Runs even after a failed create: whatever it left behind goes.
void ConformanceScript::step_remove() {
  if (!create_attempted_) {
    report_.skip("op.remove", "skipped: " + aborted_.value_or("no computer was created"));
    return next();
  }
  run_op(Operation::remove, Json{{"computer_id", settings_.computer_id}}, {},
             [this](ProbeResult probe) {
               if (auto problem = op_problem(probe, kRequired("remove"))) {
                 report_.fail("op.remove", *problem);
                 return next();
               }
               removed_ = true;
               const Json& result = probe.result.value();
               auto removed = result.find("removed");
               if (removed == result.end() || !removed->is_boolean()) {
                 report_.fail("op.remove", "the result has no \"removed\" boolean");
               } else if (!aborted_ && !removed->get<bool>()) {
                 report_.fail("op.remove", "removed=false for a computer that existed");
               } else {
                 report_.pass("op.remove");
               }
               next();
             });
}

void ConformanceScript::step_list_after_remove() {
  if (!removed_) {
    report_.skip("list.after-remove", "skipped: remove did not run or failed");
    return next();
  }
  run_op(Operation::list, Json::object(), {}, [this](ProbeResult probe) {
    if (auto problem = op_problem(probe, kRequired("list"))) {
      report_.fail("list.after-remove", *problem);
    } else if (auto found = listing_contains(probe, settings_.computer_id); !found) {
      report_.fail("list.after-remove", failure_text(found.error()));
    } else if (found.value()) {
      report_.fail("list.after-remove", "the removed computer is still listed");
    } else {
      report_.pass("list.after-remove", "the computer is gone");
    }
    next();
  });
}

void ConformanceScript::step_remove_again() {
  if (!removed_) {
    report_.skip("remove.idempotent", "skipped: remove did not run or failed");
    return next();
  }
  run_op(Operation::remove, Json{{"computer_id", settings_.computer_id}}, {},
             [this](ProbeResult probe) {
               if (auto problem = op_problem(probe, kRequired("remove"))) {
                 report_.fail("remove.idempotent", *problem + " (remove must be idempotent)");
               } else if (probe.result.value().value("removed", true) != false) {
                 report_.fail("remove.idempotent",
                              "a second remove did not answer removed=false");
               } else {
                 report_.pass("remove.idempotent");
               }
               next();
             });
}

void ConformanceScript::step_network_access() {
  if (skipped_after_abort("op.set_network_access")) return;
  if (!declared(VC_CAP_NETWORK_ACCESS)) {
    report_.skip("op.set_network_access", kNotDeclared);
    return next();
  }
  switch_network(false, [this](std::optional<std::string> off_problem) {
    if (off_problem) {
      report_.fail("op.set_network_access", "turning it off: " + *off_problem);
      return next();
    }
    switch_network(true, [this](std::optional<std::string> on_problem) {
      if (on_problem) {
        report_.fail("op.set_network_access", "turning it on again: " + *on_problem);
      } else {
        report_.pass("op.set_network_access", "off, then on again");
      }
      next();
    });
  });
}

// One switch; `done` hears why its result is wrong, or nullopt.
void ConformanceScript::switch_network(bool enabled,
                                       std::function<void(std::optional<std::string>)> done) {
  run_op(Operation::set_network_access,
         Json{{"computer_id", settings_.computer_id}, {"enabled", enabled}}, {},
         [this, enabled, done = std::move(done)](ProbeResult probe) {
           if (auto problem = op_problem(probe, {"set_network_access", VC_CAP_NETWORK_ACCESS,
                                                 "VC_CAP_NETWORK_ACCESS"})) {
             return done(problem);
           }
           auto info = computer_info_for(probe, settings_.computer_id);
           if (!info) return done(failure_text(info.error()));
           if (info.value().network_access != enabled) {
             return done(std::string("the result says network_access is ") +
                         (enabled ? "false" : "true"));
           }
           done(std::nullopt);
         });
}

// The computer runs, so wait_for_death must still be waiting after a while; cancelled then, it
// must complete, once, within the grace period, as VC_E_CANCELLED.
void ConformanceScript::step_wait_for_death() {
  if (skipped_after_abort("op.wait_for_death")) return;
  if (!declared(VC_CAP_WAIT_FOR_DEATH)) {
    report_.skip("op.wait_for_death", kNotDeclared);
    return next();
  }
  const uint64_t grace = std::min(kCancelGraceMs, settings_.op_timeout_ms);
  ProbeOptions options;
  options.deadline_ms = kCancelAfterMs + grace;
  auto cancelled = std::make_shared<bool>(false);
  CancelHandle handle = run_op(
      Operation::wait_for_death, Json{{"computer_id", settings_.computer_id}}, std::move(options),
      [this, cancelled, grace](ProbeResult probe) {
        const OpRequirement requirement{"wait_for_death", VC_CAP_WAIT_FOR_DEATH,
                                        "VC_CAP_WAIT_FOR_DEATH"};
        if (!*cancelled) {
          report_.fail("op.wait_for_death",
                       "completed while the computer was running (" +
                           op_problem(probe, requirement).value_or("with a result") + ")");
        } else if (!probe.completed) {
          report_.fail("op.wait_for_death", "a cancelled wait_for_death did not complete within " +
                                                std::to_string(grace / 1000) + " s of the cancel");
        } else if (probe.result || probe.result.error().status != VC_E_CANCELLED ||
                   !probe.misbehaviours.empty()) {
          report_.fail("op.wait_for_death",
                       "cancelled, it completed with " +
                           op_problem(probe, requirement).value_or("a result") +
                           " instead of VC_E_CANCELLED");
        } else {
          report_.pass("op.wait_for_death", "waits while the computer runs; a cancel ends it");
        }
        next();
      });
  after(kCancelAfterMs, [handle, cancelled]() {
    *cancelled = true;
    handle->cancel();
  });
}

// Needs no computer. The op is optional: without it the server describes the computer in
// general terms.
void ConformanceScript::step_tool_instructions() {
  if (skipped_after_abort("op.tool_instructions")) return;
  run_op(Operation::tool_instructions,
         Json{{"shell", settings_.shell}, {"default_timeout_s", 120}}, {},
         [this](ProbeResult probe) {
           if (probe.completed && probe.misbehaviours.empty() && !probe.result &&
               probe.result.error().status == VC_E_UNSUPPORTED) {
             report_.skip("op.tool_instructions",
                          "skipped (not provided: the server describes the computer itself)");
             return next();
           }
           if (auto problem = op_problem(probe, {"tool_instructions"})) {
             report_.fail("op.tool_instructions", *problem);
             return next();
           }
           const Json& document = probe.result.value();
           auto text = document.find("instructions");
           if (text == document.end() || !(text->is_string() || text->is_null())) {
             report_.fail("op.tool_instructions",
                          "the result has no \"instructions\" string (or null)");
           } else if (text->is_null()) {
             report_.pass("op.tool_instructions", "null: no text for this configuration");
           } else {
             report_.pass("op.tool_instructions",
                          std::to_string(text->get_ref<const std::string&>().size()) +
                              " characters");
           }
           next();
         });
}

// Violations the per-op checks could not see: a late second completion or emit that arrived
// after its op's settling pause (waiting one more pause for the stragglers), and an op
// function that did its work in the call instead of on a thread of its own.
void ConformanceScript::step_contract() {
  check_non_blocking();
  after(kSettleMs, [this]() {
    const auto lines = log_->since(0);
    if (lines.empty()) {
      report_.pass("contract.exactly-once", "every op completed once; nothing emitted late");
    } else {
      std::string text;
      for (const auto& line : lines) text += (text.empty() ? "" : "; ") + line;
      report_.fail("contract.exactly-once", std::to_string(lines.size()) +
                                                " violation(s): " + text);
    }
    next();
  });
}

// An op function runs on the host's loop thread, which serves every client meanwhile: it must
// return at once, leaving the work to a thread of the plugin's that completes the op later.
void ConformanceScript::check_non_blocking() {
  const SlowestCall& slowest = probe_.slowest_call();
  if (slowest.op == nullptr) {
    report_.skip("contract.non-blocking", "skipped: no op ran");
    return;
  }
  const std::string took = format_milliseconds(slowest.call_us);
  if (slowest.call_us > kCallBlockingLimitUs) {
    report_.fail("contract.non-blocking",
                 "the " + std::string(slowest.op) + " call held the host's loop thread for " +
                     took + " (limit " + format_milliseconds(kCallBlockingLimitUs) +
                     "): an op function must return at once and do its work on a thread of "
                     "the plugin's, completing the op from there");
  } else {
    report_.pass("contract.non-blocking",
                 "every op call returned at once (slowest: " + std::string(slowest.op) + ", " +
                     took + ")");
  }
}

}  // namespace vc::operator_cli
