// api_watch.h — a watch of a collection: the API's stream of ADDED, MODIFIED, DELETED and
// BOOKMARK events as they happen, until the server ends it, it fails, or the caller stops it.
//
//   auto watching = watch(client, {.path = "/api/v1/namespaces/ns/configmaps",
//                                  .resource_version = list_rv},
//                         [](WatchEvent event) { ... }, [](ApiExpected<void> end) { ... });
//   watching.stop();
//
// The watch is a GET with watch=true and allowWatchBookmarks on a connection of its own (never a
// kept-alive one), whose chunked answer is one JSON event per line (ndjson_splitter.h). There is
// no deadline once the answer has begun: timeoutSeconds asks the server to end the watch (it
// does, cleanly, and on_end gets success); without it the server picks its own (30 to 60
// minutes). Connecting and the answer's header have the client's request timeout, and a watch
// the server has not ended 60 s after its timeoutSeconds ends with kind timeout (a connection
// that died silently).
//
// An ERROR event is passed to on_event like the others; then the watch ends, on_end getting its
// Status as the error (code 410, "Expired": kind gone).
//
// Reconnecting is the caller's business: a watch that ended (success or not) is not resumed.
// Watch again from the resourceVersion of the last event seen (BOOKMARK events carry one); on
// kind `gone` (410: that resourceVersion is too old) list again and watch from the list's.
//
// Thread rule: watch() on any thread; on_event and on_end run on the loop thread; on_end runs
// exactly once and no on_event follows it. stop() on any thread; on the loop thread no on_event
// comes after it returns. Destroying the ApiClient stops its watches (kind cancelled).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api_client.h"

namespace vc::kubernetes {

enum class WatchEventType { added, modified, deleted, bookmark, error };
const char* watch_event_type_name(WatchEventType type);  // "ADDED"

struct WatchEvent {
  WatchEventType type = WatchEventType::added;
  // The object; for BOOKMARK only its kind and metadata.resourceVersion; for ERROR a Status.
  nlohmann::json object;
};

// Every member has an initializer, so designated initializers may leave any out.
struct WatchRequest {
  // The collection, plain text: "/api/v1/namespaces/ns/configmaps".
  std::string path{};
  // Where the events begin: after this resourceVersion (a list's metadata.resourceVersion or an
  // event's). Empty: the server first sends ADDED for every object there is, then changes.
  std::string resource_version{};
  std::string label_selector{};  // "app=web"
  std::string field_selector{};  // "metadata.name=x"
  // The server ends the watch after this many seconds; unset: the server's own choice.
  std::optional<int> timeout_seconds{};
  bool allow_bookmarks = true;
  // A larger event is refused (kind protocol) and ends the watch.
  std::size_t max_event_bytes = 4 * 1024 * 1024;
};

// The query a watch sends: watch=true, allowWatchBookmarks, resourceVersion, the selectors and
// timeoutSeconds, each only when set.
QueryParams watch_query(const WatchRequest& request);

// Ends a watch from any thread. After stop(), on_end gets kind cancelled (unless the watch had
// already ended: on_end is never called twice).
class WatchHandle {
 public:
  WatchHandle() = default;
  explicit WatchHandle(ApiOperationHandle operation) : operation_(std::move(operation)) {}
  void stop() const { operation_.cancel(); }

 private:
  ApiOperationHandle operation_;
};

using WatchEventCallback = std::function<void(WatchEvent event)>;
// Success: the server ended the watch (timeoutSeconds passed). An error: kind cancelled after
// stop(); the server's refusal (api_status.h) or its ERROR event (410 is kind gone); protocol for
// an answer that is not JSON events or an event over the bound; unreachable when the connection
// broke; timeout as above.
using WatchEndCallback = std::function<void(ApiExpected<void> end)>;

// [any-thread] Starts watching with `client`'s server and credentials (a 401 is retried once
// with fresh credentials, as for REST calls).
WatchHandle watch(ApiClient& client, WatchRequest request, WatchEventCallback on_event,
                  WatchEndCallback on_end);

}  // namespace vc::kubernetes
