// lifecycle_reports.h — the documents that report a lifecycle operation to a person or a
// program (docs/compatibility.md, "Lifecycle tools"): the lifecycle tools return them,
// `computers --json` prints them.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "computers/computer_types.h"

namespace vc::computers {

// {"computers": [listing entries], "count": n}
Json computer_listing_report(const std::vector<ComputerInfo>& computers, const std::string& backend);

// {"ok": true, "computer_id", "sandbox_id", "temporary"}: created, restarted or reset.
Json computer_changed_report(const ComputerInfo& computer);

// {"ok": true, "computer_id", "deleted": true}
Json computer_deleted_report(const std::string& computer_id);

}  // namespace vc::computers
