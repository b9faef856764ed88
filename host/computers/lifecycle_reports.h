// lifecycle_reports.h — the documents that report a lifecycle operation to a person or a
// program (docs/compatibility.md, "Lifecycle tools"): the lifecycle tools return them,
// `computers --json` prints them.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "computers/checkpoint_types.h"
#include "computers/computer_types.h"

namespace vc::computers {

// {"computers": [listing entries], "count": n}
Json computer_listing_report(const std::vector<ComputerInfo>& computers, const std::string& backend);

// {"ok": true, "computer_id", "sandbox_id", "temporary"}: created, restarted or reset.
Json computer_changed_report(const ComputerInfo& computer);

// {"ok": true, "computer_id", "deleted": true}
Json computer_deleted_report(const std::string& computer_id);

// {"ok": true, "computer_id", "sandbox_id", "temporary", "checkpoint": checkpoint info}: a
// checkpoint created or restored, with the computer as it is now.
Json checkpoint_report(const CheckpointOutcome& outcome);

// {"ok": true, "computer_id" (the new computer), "sandbox_id", "temporary", "forked_from",
// "checkpoint": checkpoint info or null (made from the current files)}.
Json computer_forked_report(const std::string& source_computer_id, const CheckpointOutcome& outcome);

// {"computer_id", "checkpoints": [checkpoint info, oldest first], "count": n}
Json checkpoint_listing_report(const CheckpointListing& listing);

// {"ok": true, "computer_id", "name", "deleted": true}
Json checkpoint_deleted_report(const std::string& computer_id, const std::string& name);

}  // namespace vc::computers
