// conformance_expectations.cpp — see conformance_expectations.h.
#include "operator/conformance_expectations.h"

#include <cstdio>

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

std::optional<std::string> checkpoints_table_problem(const backend_proxy::ExtensionOffer& offer) {
  constexpr size_t kAbi12Size = sizeof(vc_backend_checkpoints);
  if (!offer.usable) {
    return "get_extension(\"" VC_EXT_BACKEND_CHECKPOINTS "\") returned a table of struct_size " +
           std::to_string(offer.struct_size) + "; ABI 1.2's has " + std::to_string(kAbi12Size) +
           " bytes (all five operations), so the host ignores it. Set struct_size = "
           "sizeof(vc_backend_checkpoints)";
  }
  if (!offer.null_slots.empty()) {
    std::string names;
    for (auto op : offer.null_slots) {
      names += (names.empty() ? "" : ", ") + std::string(backend_proxy::operation_name(op));
    }
    return "the table leaves " + names +
           " NULL: a backend that offers checkpoints implements all five operations (or "
           "returns NULL from get_extension)";
  }
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
