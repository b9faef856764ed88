// lifecycle_reports.cpp — see lifecycle_reports.h.
#include "computers/lifecycle_reports.h"

namespace vc::computers {

Json computer_listing_report(const std::vector<ComputerInfo>& computers,
                             const std::string& backend) {
  Json entries = Json::array();
  for (const auto& computer : computers) entries.push_back(computer.to_listing_json(backend));
  return Json{{"computers", std::move(entries)}, {"count", computers.size()}};
}

Json computer_changed_report(const ComputerInfo& computer) {
  return Json{{"ok", true},
              {"computer_id", computer.computer_id},
              {"sandbox_id", computer.sandbox_id},
              {"temporary", computer.temporary}};
}

Json computer_deleted_report(const std::string& computer_id) {
  return Json{{"ok", true}, {"computer_id", computer_id}, {"deleted", true}};
}

Json checkpoint_report(const CheckpointOutcome& outcome) {
  Json report = computer_changed_report(outcome.computer);
  report["checkpoint"] = outcome.checkpoint ? outcome.checkpoint->to_json() : Json();
  return report;
}

Json computer_forked_report(const std::string& source_computer_id,
                            const CheckpointOutcome& outcome) {
  Json report = computer_changed_report(outcome.computer);
  report["forked_from"] = source_computer_id;
  report["checkpoint"] = outcome.checkpoint ? outcome.checkpoint->to_json() : Json();
  return report;
}

Json checkpoint_listing_report(const CheckpointListing& listing) {
  Json entries = Json::array();
  for (const auto& checkpoint : listing.checkpoints) entries.push_back(checkpoint.to_json());
  return Json{{"computer_id", listing.computer_id},
              {"checkpoints", std::move(entries)},
              {"count", listing.checkpoints.size()}};
}

Json checkpoint_deleted_report(const std::string& computer_id, const std::string& name) {
  return Json{{"ok", true}, {"computer_id", computer_id}, {"name", name}, {"deleted", true}};
}

}  // namespace vc::computers
