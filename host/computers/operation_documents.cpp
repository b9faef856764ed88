// operation_documents.cpp — building backend requests and reading their results.
#include "computers/operation_documents.h"

#include <limits>
#include <stdexcept>

#include <vc-backend-1/vc_status.h>

namespace vc::computers {
namespace {

constexpr int64_t kMillisecondsPerSecond = 1000;

int64_t seconds_to_milliseconds(int64_t seconds) {
  if (seconds > std::numeric_limits<int64_t>::max() / kMillisecondsPerSecond) {
    return std::numeric_limits<int64_t>::max();
  }
  return seconds * kMillisecondsPerSecond;
}

// Exit codes are small in practice; a backend reporting something outside int is clamped
// rather than wrapped.
int clamp_exit_code(int64_t code) {
  if (code > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
  if (code < std::numeric_limits<int>::min()) return std::numeric_limits<int>::min();
  return static_cast<int>(code);
}

Failure malformed_exec_result(const std::string& why) {
  return Failure{VC_E_FAILED, "The backend returned a malformed exec result: " + why + "."};
}

std::optional<ExecOutcome> outcome_from_name(const std::string& name) {
  if (name == "exited") return ExecOutcome::exited;
  if (name == "timed_out") return ExecOutcome::timed_out;
  if (name == "output_limit_exceeded") return ExecOutcome::output_limit_exceeded;
  return std::nullopt;
}

Failure unusable_checkpoint_result(const char* op, const std::string& why) {
  return Failure{VC_E_FAILED,
                 std::string("The backend returned an unusable ") + op + " result: " + why + "."};
}

Expected<CheckpointInfo> read_checkpoint_info(const Json& doc, const char* op) {
  try {
    return CheckpointInfo::from_json(doc);
  } catch (const std::invalid_argument& error) {
    return unusable_checkpoint_result(op, error.what());
  }
}

}  // namespace

Json attach_request(const ComputerSettings& settings) {
  return Json{{"computer_id", settings.computer_id},
              {"network_access", settings.network_access},
              {"desktop_environment", settings.desktop_environment},
              {"shell", settings.shell}};
}

Json create_request(const ComputerSettings& settings) {
  return Json{{"computer_id", settings.computer_id},
              {"temporary", false},
              {"network_access", settings.network_access},
              {"desktop_environment", settings.desktop_environment},
              {"workspace_directory", settings.workspace_directory},
              {"shell", settings.shell},
              {"adopt_existing", false}};
}

Json computer_request(const std::string& computer_id) { return Json{{"computer_id", computer_id}}; }

Json exec_request(const std::string& computer_id, const std::string& shell,
                  const ExecRequest& request) {
  Json doc = Json::object();
  doc["computer_id"] = computer_id;
  if (request.command) {
    doc["command"] = *request.command;
    doc["shell"] = shell;
  } else {
    doc["argv"] = request.args;
  }
  if (request.working_directory) doc["working_directory"] = *request.working_directory;
  doc["timeout_ms"] = seconds_to_milliseconds(request.timeout_s);
  doc["output_limit"] = request.output_limit;
  return doc;
}

Expected<ComputerInfo> read_computer_info(const Json& result) {
  try {
    return ComputerInfo::from_json(result);
  } catch (const std::invalid_argument& error) {
    return Failure{VC_E_FAILED,
                   std::string("The backend returned an unusable computer description: ") +
                       error.what() + "."};
  }
}

Expected<ExecCompletion> read_exec_result(const Json& result) {
  if (!result.is_object()) return malformed_exec_result("it is not a JSON object");
  ExecCompletion completion;
  auto outcome = result.find("outcome");
  if (outcome == result.end() || !outcome->is_string()) {
    return malformed_exec_result("\"outcome\" must be a string");
  }
  auto parsed_outcome = outcome_from_name(outcome->get<std::string>());
  if (!parsed_outcome) {
    return malformed_exec_result("unknown outcome \"" + outcome->get<std::string>() + "\"");
  }
  completion.outcome = *parsed_outcome;
  auto exit_code = result.find("exit_code");
  if (exit_code != result.end() && exit_code->is_number_integer()) {
    completion.exit_code = clamp_exit_code(exit_code->get<int64_t>());
  } else if (completion.outcome == ExecOutcome::exited) {
    // Only a command that ran to its end has an exit code worth reporting.
    return malformed_exec_result("\"exit_code\" must be an integer");
  }
  auto duration = result.find("duration_ms");
  if (duration != result.end() && duration->is_number_integer()) {
    completion.duration_ms = duration->get<int64_t>();
  }
  return completion;
}

Json checkpoint_request(const std::string& computer_id, const std::string& name) {
  return Json{{"computer_id", computer_id}, {"name", name}};
}

Json fork_request(const std::string& computer_id, const ForkSpec& spec) {
  Json doc{{"computer_id", computer_id}, {"new_computer_id", spec.new_computer_id}};
  if (spec.checkpoint) doc["name"] = *spec.checkpoint;
  return doc;
}

Expected<CheckpointOutcome> read_checkpoint_outcome(const Json& result,
                                                    const std::string& computer_id,
                                                    bool checkpoint_expected) {
  const char* op = "checkpoint";
  if (!result.is_object()) return unusable_checkpoint_result(op, "it is not a JSON object");
  auto computer = result.find("computer");
  if (computer == result.end()) return unusable_checkpoint_result(op, "it has no \"computer\"");
  auto info = read_computer_info(*computer);
  if (!info.ok()) return info.error();
  if (info.value().computer_id != computer_id) {
    return Failure{VC_E_FAILED, "The backend returned computer '" + info.value().computer_id +
                                    "' when asked for '" + computer_id + "'."};
  }
  CheckpointOutcome outcome;
  outcome.computer = std::move(info).value();
  auto checkpoint = result.find("checkpoint");
  if (checkpoint == result.end() || checkpoint->is_null()) {
    if (checkpoint_expected) return unusable_checkpoint_result(op, "it has no \"checkpoint\"");
    return outcome;
  }
  auto read = read_checkpoint_info(*checkpoint, op);
  if (!read.ok()) return read.error();
  outcome.checkpoint = std::move(read).value();
  return outcome;
}

Expected<CheckpointListing> read_checkpoint_listing(const Json& result,
                                                    const std::string& computer_id) {
  const char* op = "list_checkpoints";
  if (!result.is_object()) return unusable_checkpoint_result(op, "it is not a JSON object");
  auto entries = result.find("checkpoints");
  if (entries == result.end() || !entries->is_array()) {
    return unusable_checkpoint_result(op, "\"checkpoints\" must be an array");
  }
  CheckpointListing listing;
  listing.computer_id = computer_id;
  for (const auto& entry : *entries) {
    auto read = read_checkpoint_info(entry, op);
    if (!read.ok()) return read.error();
    listing.checkpoints.push_back(std::move(read).value());
  }
  return listing;
}

Expected<bool> read_checkpoint_deletion(const Json& result) {
  if (!result.is_object() || result.value("deleted", Json()) != true) {
    return unusable_checkpoint_result("delete_checkpoint", "it does not say \"deleted\": true");
  }
  return true;
}

std::optional<ProgressEvent> read_progress_event(std::string_view bytes) {
  Json doc = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  auto progress = doc.find("progress");
  if (progress == doc.end() || !progress->is_number()) return std::nullopt;
  ProgressEvent event;
  event.progress = progress->get<double>();
  auto total = doc.find("total");
  if (total != doc.end() && total->is_number()) event.total = total->get<double>();
  auto message = doc.find("message");
  if (message != doc.end() && message->is_string()) event.message = message->get<std::string>();
  return event;
}

}  // namespace vc::computers
