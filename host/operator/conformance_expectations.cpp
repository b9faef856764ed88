// conformance_expectations.cpp — see conformance_expectations.h.
#include "operator/conformance_expectations.h"

#include <cstdio>

#include <vc-backend-1/cpp/process_limits.h>
#include <vc-backend-1/ext/vc_backend_checkpoints.h>
#include <vc-backend-1/ext/vc_backend_processes.h>

#include "backend_proxy/status_text.h"

namespace vc::operator_cli {
namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += (text.empty() ? "" : "; ") + line;
  return text;
}

}  // namespace

std::optional<std::string> op_problem(const ProbeResult& probe, const OpRequirement& requirement) {
  const std::string op = requirement.op_name;
  if (!probe.completed) {
    return op + " did not complete within " + std::to_string(probe.elapsed_ms / 1000) +
           " s (every accepted op must complete exactly once; --op-timeout sets the limit)";
  }
  if (!probe.misbehaviours.empty()) return "contract violation: " + joined(probe.misbehaviours);
  if (probe.result) return std::nullopt;
  const Failure& failure = probe.result.error();
  if (failure.status == VC_E_UNSUPPORTED) {
    if (requirement.capability == 0 && requirement.capability_name != nullptr) {
      return std::string("the plugin offers ") + requirement.capability_name + ", but " + op +
             " answered VC_E_UNSUPPORTED";
    }
    if (requirement.capability == 0) {
      return op + " answered VC_E_UNSUPPORTED, but every backend must implement it";
    }
    return std::string("the descriptor declares ") + requirement.capability_name + ", but " + op +
           " answered VC_E_UNSUPPORTED";
  }
  return op + " failed (" + backend_proxy::status_name(failure.status) + "): " + failure.message;
}

Expected<computers::ExecCompletion> exec_completion(const ProbeResult& probe) {
  if (auto problem = op_problem(probe, {"exec"})) return Failure{VC_E_FAILED, *problem};
  return computers::read_exec_result(probe.result.value());
}

Expected<computers::ComputerInfo> computer_info_for(const ProbeResult& probe,
                                                    const std::string& computer_id) {
  auto info = computers::read_computer_info(probe.result.value());
  if (!info) return info.error();
  if (info.value().computer_id != computer_id) {
    return Failure{VC_E_FAILED, "the result describes computer '" + info.value().computer_id +
                                    "', not '" + computer_id + "'"};
  }
  return info;
}

Expected<bool> listing_contains(const ProbeResult& probe, const std::string& computer_id) {
  const Json& document = probe.result.value();
  auto computers_field = document.find("computers");
  if (computers_field == document.end() || !computers_field->is_array()) {
    return Failure{VC_E_FAILED, "the list result has no \"computers\" array"};
  }
  bool found = false;
  for (const Json& entry : *computers_field) {
    auto info = computers::read_computer_info(entry);
    if (!info) return Failure{VC_E_FAILED, "a listed computer: " + info.error().message};
    if (info.value().computer_id == computer_id) found = true;
  }
  return found;
}

namespace {

// An extension whose table comes whole (checkpoints, processes): what `offer` lacks.
struct WholeTable {
  const char* id;           // VC_EXT_BACKEND_CHECKPOINTS
  const char* abi;          // "1.2", the minor that published it
  size_t size;              // sizeof(vc_backend_checkpoints)
  const char* type_name;    // "vc_backend_checkpoints"
  const char* offers_what;  // "checkpoints"
};

std::optional<std::string> whole_table_problem(const backend_proxy::ExtensionOffer& offer,
                                               const WholeTable& table) {
  if (!offer.usable) {
    return "get_extension(\"" + std::string(table.id) + "\") returned a table of struct_size " +
           std::to_string(offer.struct_size) + "; ABI " + table.abi + "'s has " +
           std::to_string(table.size) + " bytes (all five operations), so the host ignores it. " +
           "Set struct_size = sizeof(" + table.type_name + ")";
  }
  if (!offer.null_slots.empty()) {
    std::string names;
    for (auto op : offer.null_slots) {
      names += (names.empty() ? "" : ", ") + std::string(backend_proxy::operation_name(op));
    }
    return "the table leaves " + names + " NULL: a backend that offers " + table.offers_what +
           " implements all five operations (or returns NULL from get_extension)";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> checkpoints_table_problem(const backend_proxy::ExtensionOffer& offer) {
  return whole_table_problem(offer, {VC_EXT_BACKEND_CHECKPOINTS, "1.2",
                                     sizeof(vc_backend_checkpoints), "vc_backend_checkpoints",
                                     "checkpoints"});
}

std::optional<std::string> processes_table_problem(const backend_proxy::ExtensionOffer& offer) {
  return whole_table_problem(offer, {VC_EXT_BACKEND_PROCESSES, "1.3",
                                     sizeof(vc_backend_processes), "vc_backend_processes",
                                     "processes"});
}

std::optional<std::string> process_listing_problem(const Json& result,
                                                   const std::string& computer_id,
                                                   size_t* count) {
  if (!result.is_object()) return "the list_processes result is not a JSON object";
  auto id = result.find("computer_id");
  if (id == result.end() || !id->is_string()) {
    return "the list_processes result has no \"computer_id\" string";
  }
  if (id->get_ref<const std::string&>() != computer_id) {
    return "the list_processes result describes computer '" + id->get<std::string>() +
           "', not '" + computer_id + "'";
  }
  auto processes = result.find("processes");
  if (processes == result.end() || !processes->is_array()) {
    return "the list_processes result has no \"processes\" array";
  }
  for (const Json& entry : *processes) {
    if (!entry.is_object()) return "a listed process is not a JSON object";
    auto process_id = entry.find("process_id");
    if (process_id == entry.end() || !process_id->is_string() ||
        !sdk::is_valid_process_id(process_id->get_ref<const std::string&>())) {
      return "a listed process has no valid \"process_id\" ('p' and a number from 1, such as "
             "\"p3\")";
    }
    auto state = entry.find("state");
    if (state == entry.end() || !state->is_string()) {
      return "the listed process " + process_id->get<std::string>() + " has no \"state\"";
    }
  }
  if (count != nullptr) *count = processes->size();
  return std::nullopt;
}

std::optional<std::string> refusal_problem(const ProbeResult& probe, const char* op_name,
                                           vc_status expected) {
  const std::string op = op_name;
  const std::string wanted = backend_proxy::status_name(expected);
  if (!probe.completed) {
    return op + " did not complete within " + std::to_string(probe.elapsed_ms / 1000) +
           " s (every accepted op must complete exactly once; --op-timeout sets the limit)";
  }
  if (!probe.misbehaviours.empty()) return "contract violation: " + joined(probe.misbehaviours);
  if (probe.result) return op + " succeeded; it should have answered " + wanted;
  const Failure& failure = probe.result.error();
  if (failure.status == expected) return std::nullopt;
  return op + " answered " + backend_proxy::status_name(failure.status) + " (" + failure.message +
         "); it should have answered " + wanted;
}

std::string visible_bytes(std::string_view bytes, size_t limit) {
  std::string text = "\"";
  for (unsigned char c : bytes) {
    if (text.size() > limit) {
      text += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
      text += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      text += escaped;
    }
  }
  return text + "\"";
}

const char* exec_outcome_name(computers::ExecOutcome outcome) {
  switch (outcome) {
    case computers::ExecOutcome::exited: return "exited";
    case computers::ExecOutcome::timed_out: return "timed_out";
    case computers::ExecOutcome::output_limit_exceeded: return "output_limit_exceeded";
  }
  return "exited";
}

}  // namespace vc::operator_cli
