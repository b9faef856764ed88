// catalog_changes.h — a tool and resource set that changes while the server runs.
//
// The desktop tools and the screen resources exist only while the computer's desktop is live
// (docs/compatibility.md, "Dynamic tool set"). A session given a CatalogChanges hides the
// tools it says are hidden (tools/list leaves them out, tools/call answers "Unknown tool"),
// advertises listChanged for tools and resources, and sends notifications/tools/list_changed
// and notifications/resources/list_changed to its client whenever the set changes.
//
// [loop-thread] for every member and every listener.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace vc::mcp {

class CatalogChanges {
 public:
  // Dropping the returned token ends the subscription.
  using Subscription = std::shared_ptr<void>;

  virtual ~CatalogChanges() = default;
  // Whether the tool of that name is in the set now.
  virtual bool tool_visible(const std::string& name) const = 0;
  // `listener` runs after every change of the set (tools, resources or both).
  virtual Subscription subscribe(std::function<void()> listener) = 0;
};

}  // namespace vc::mcp
