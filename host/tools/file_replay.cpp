// file_replay.cpp — see file_replay.h.
#include "tools/file_replay.h"

#include <utility>

#include "computers/desktop_action.h"
#include "tools/desktop_tool_set.h"

namespace vc::tools {

void replay_file_change(computers::ComputerRegistry& registry,
                        const computers::ComputerInfo& computer, FileChange change,
                        std::function<void(Json warning)> done) {
  if (!desktop_live(computer)) return done(nullptr);
  Json action{{"action", "show_file"}, {"operation", change.operation}, {"path", change.path}};
  if (change.operation == "edit") action["new_text"] = change.new_text;
  computers::run_desktop_action(registry, std::move(action),
                                [done = std::move(done)](Expected<Json> shown) {
                                  if (!shown) return done(Json(shown.error().message));
                                  done(nullptr);
                                });
}

}  // namespace vc::tools
