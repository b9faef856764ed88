// file_replay.h — what a person watching a live desktop sees of the file tools.
//
// After read_file, write_file or edit_file has done its real work, the desktop agent shows the
// file in Mousepad (the folder in Thunar first for a new file; for an edit, the new text
// found and selected), so a person watching sees what the agent did (docs/desktop.md, "The
// file tools on the desktop"). The replay never writes the file: the content on disk is exactly
// what the tool wrote. It is best effort: a replay that fails becomes the payload's
// visualization_warning, never the tool's failure.
//
// [loop-thread].
#pragma once

#include <functional>
#include <string>

#include "common/json.h"
#include "computers/computer_registry.h"
#include "computers/computer_types.h"

namespace vc::tools {

struct FileChange {
  std::string operation;  // "read", "write" or "edit"
  std::string path;       // absolute
  std::string new_text;   // edit only: the replacement, to find and select
};

// Runs the replay when `computer`'s desktop is live; `done` gets null (shown, or no desktop) or
// the warning's text. `done` runs exactly once.
void replay_file_change(computers::ComputerRegistry& registry,
                        const computers::ComputerInfo& computer, FileChange change,
                        std::function<void(Json warning)> done);

}  // namespace vc::tools
