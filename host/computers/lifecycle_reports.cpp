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

}  // namespace vc::computers
