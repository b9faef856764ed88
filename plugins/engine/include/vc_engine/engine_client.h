// engine_client.h — the Docker Engine API client (also Podman's Docker-compatible API).
//
// One EngineClient per engine address. It opens one connection per request (keep-alive buys
// nothing next to the engine's own work, and cancelling is then just closing the handle), talks
// HTTP/1.1 parsed by llhttp, and offers four kinds of call:
//   - buffered:   request()/get_json()/post_json()/delete_json() -> whole response;
//   - lines:      stream_lines() for NDJSON bodies (image pull, build, /events);
//   - long poll:  long_poll_json() for POST /containers/{id}/wait?condition=next-exit;
//   - hijack:     start_exec() -> ExecStream for an exec's stdin/stdout/stderr.
//
// Threading: every method may be called from any thread; the work happens on the EngineLoop's
// thread, and EVERY callback runs on the EngineLoop's thread, exactly once for completion
// callbacks. Callbacks must not block (they hold up every other engine call); post heavy work
// elsewhere. Two completions run at once on the CALLING thread instead: a call started after
// the loop stopped (kCancelled), and a request that cannot be written (kInvalidArgument: a
// target or header with a line break, a target not starting with '/'). The client may be destroyed
// while calls are in flight: they keep their own copy of what they need and complete normally,
// but their callbacks then run without it. Callbacks that use the client therefore need it
// alive until the EngineLoop has stopped: destroy the loop first (engine_loop.h), then the
// client, which holds nothing of the loop's. Calls are made only while the loop exists.
//
// Versioning: negotiate() reads GET /_ping (Api-Version; Libpod-Api-Version marks Podman) and
// GET /version, and refuses engines older than API 1.41. The JSON helpers prefix their paths
// with "/v<api_version>" (default "/v1.41" before negotiate(), which is right for both engines
// measured here).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "vc_engine/engine_address.h"
#include "vc_engine/engine_error.h"
#include "vc_engine/engine_loop.h"
#include "vc_engine/exec_stream.h"
#include "vc_engine/http_types.h"
#include "vc_engine/request_handle.h"
#include "vc_engine/url.h"

namespace vc::engine {

// The lowest engine API version this client accepts, and the highest it speaks.
inline constexpr std::string_view kMinimumApiVersion = "1.41";
inline constexpr std::string_view kMaximumApiVersion = "1.41";

// What negotiate() learned about the engine.
struct EngineInfo {
  std::string api_version;  // the version this client uses: min(kMaximumApiVersion, engine's)
  std::string engine_api_version;  // the engine's maximum, from /_ping's Api-Version
  std::string min_api_version;     // the engine's minimum, from /version (may be empty)
  std::string version;             // engine release, "20.10.24+dfsg1" or "4.3.1"
  std::string os;                  // "linux"
  std::string arch;                // "amd64"
  std::string server;              // the Server header, "Docker/20.10.24+dfsg1 (linux)"
  bool is_podman = false;          // /_ping carried Libpod-Api-Version
  std::string libpod_api_version;  // "4.3.1" on Podman, else empty
};

// A JSON response with a success or redirect status (< 400). `body` is null for an empty body
// (204, 304), the parsed document for a JSON body, and a JSON string for a body that is not
// JSON (Podman answers "OK" to network connect/disconnect).
struct JsonResponse {
  int status = 0;
  nlohmann::json body;
  HttpHeaders headers;
};

struct ClientOptions {
  std::string user_agent = "mcp-virtual-computer";
};

class EngineClient {
 public:
  using ResponseCallback = std::function<void(Result<HttpResponse>)>;
  using JsonCallback = std::function<void(Result<JsonResponse>)>;
  using InfoCallback = std::function<void(Result<EngineInfo>)>;

  EngineClient(EngineLoop& loop, EngineAddress address, ClientOptions options = {});
  ~EngineClient();

  EngineClient(const EngineClient&) = delete;
  EngineClient& operator=(const EngineClient&) = delete;

  const EngineAddress& address() const;
  EngineLoop& loop() const;

  // --- version negotiation ------------------------------------------------------------------

  // GET /_ping, then GET /version. On success stores the EngineInfo (info(), api_prefix()
  // reflect it afterwards) and passes it on. Errors: the transport error (kConnect "connection
  // refused", "no such file or directory", "permission denied"; kTimeout), kHttpStatus when
  // /_ping fails, kIncompatible "engine API version 1.40 is older than 1.41, the oldest this
  // server supports; upgrade the engine" when the engine is too old.
  // `deadlines` applies to each of the two requests.
  RequestHandle negotiate(InfoCallback on_done,
                          RequestOptions deadlines = RequestOptions::buffered());

  // The last successful negotiate()'s result, or nullopt. Any thread.
  std::optional<EngineInfo> info() const;
  // "/v1.41" (the negotiated version, or the default before negotiate()). Any thread.
  std::string api_prefix() const;
  // api_prefix() + path_and_query. Any thread.
  std::string api_target(std::string_view path_and_query) const;

  // How many buffered, line and long-poll calls so far could not reach the engine (kConnect)
  // or lost their connection to it (kTransport); cancels and timeouts do not count. Two
  // readings that differ prove the engine was unreachable at some moment in between, which is
  // how a container stopped by an engine restart is told from one that died. Any thread.
  std::uint64_t connection_losses() const;

  // --- buffered calls -------------------------------------------------------------------------

  // Sends `request` as is (its target is NOT prefixed) and delivers the whole response whatever
  // its status: an engine's 404 is a successful HTTP exchange here.
  RequestHandle request(HttpRequest request, ResponseCallback on_done,
                        RequestOptions deadlines = RequestOptions::buffered());

  // JSON calls. `path` is unversioned and may carry a query ("/containers/json?all=1"; build it
  // with query_target()); the API prefix is added. A status >= 400 becomes kHttpStatus with
  // http_status set, engine_message = the body's "message" (Docker and Podman both send one),
  // and message = "engine answered <status>: <engine_message>". A 2xx/3xx body gives null when
  // empty, the parsed document when it is JSON, kProtocol when it is labelled JSON
  // (Content-Type) but does not parse, and a JSON string otherwise (Podman answers "OK" to
  // some calls).
  RequestHandle get_json(std::string path, JsonCallback on_done,
                         RequestOptions deadlines = RequestOptions::buffered());
  // POST with a JSON body (nullopt = no body, Content-Length: 0).
  RequestHandle post_json(std::string path, std::optional<nlohmann::json> body,
                          JsonCallback on_done,
                          RequestOptions deadlines = RequestOptions::buffered());
  RequestHandle delete_json(std::string path, JsonCallback on_done,
                            RequestOptions deadlines = RequestOptions::buffered());
  // Any method, optional JSON body. The helpers above call this.
  RequestHandle call_json(std::string method, std::string path, std::optional<nlohmann::json> body,
                          JsonCallback on_done,
                          RequestOptions deadlines = RequestOptions::buffered());

  // --- long poll ------------------------------------------------------------------------------

  // A JSON call whose answer may take forever (POST /containers/{id}/wait?condition=next-exit).
  // No overall deadline unless `deadlines` sets one; cancel through the handle. `on_headers`
  // (optional) runs when the response headers arrive, before the body: for /wait that proves
  // the wait is registered, so a start/stop issued afterwards cannot race it. It gets the
  // status; it does not run when the connection fails first. `on_done` as for call_json().
  RequestHandle long_poll_json(std::string method, std::string path,
                               std::optional<nlohmann::json> body,
                               std::function<void(int http_status)> on_headers,
                               JsonCallback on_done,
                               RequestOptions deadlines = RequestOptions::unbounded());

  // --- line streams ---------------------------------------------------------------------------

  // Streams a body line by line (NDJSON: POST /images/create progress, POST /build output,
  // GET /events). `request.target` IS prefixed with the API version here (pass an unversioned
  // path). Each complete line, without its '\n' (and without a '\r' before it), is passed to
  // `on_line` as soon as it arrives; empty lines are skipped; a last line without '\n' is
  // delivered at the end. When the status is >= 400 no lines are delivered: the body is
  // buffered and on_done gets kHttpStatus as for call_json(). Otherwise on_done gets the status
  // after the last line. No overall deadline unless `deadlines` sets one.
  // Note: build and pull report failure INSIDE the stream ({"error":...,"errorDetail":...}
  // lines with status 200); parse the lines to see it.
  RequestHandle stream_lines(HttpRequest request,
                             std::function<void(std::string_view line)> on_line,
                             std::function<void(Result<int>)> on_done,
                             RequestOptions deadlines = RequestOptions::unbounded());

  // --- exec hijack ----------------------------------------------------------------------------

  // POST /exec/{exec_id}/start {"Detach":false,"Tty":<tty>} with the upgrade headers, then the
  // raw stream (exec_stream.h). Create the exec first with post_json("/containers/{id}/exec",
  // {"AttachStdin":true,"AttachStdout":true,"AttachStderr":true,"Tty":false,"Cmd":[...]}).
  std::unique_ptr<ExecStream> start_exec(std::string exec_id, ExecStartOptions options,
                                         ExecStreamCallbacks callbacks);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace vc::engine
