// cluster_calls.h — the blocking calls the backend's work makes to the cluster, one namespace.
//
// The backend runs each operation as blocking work on a lane of the SDK's WorkLanes (one lane
// per computer, so a computer's operations keep their order): the flows read top to bottom —
// create the claim, create the pod, wait until it runs. ClusterCalls is that blocking surface;
// api_cluster_calls.h implements it on the asynchronous transport (the API thread), and unit
// tests give the flows a fake.
//
// Every call takes the operation's CancelScope: a cancel aborts the call in flight (its
// connection is closed) and the call returns an ApiError of kind `cancelled`.
//
// Thread rule: any thread but the API loop's (the calls wait for it); one object is shared by
// all lanes (implementations are thread-safe).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/cancel_scope.h>

#include "api_error.h"
#include "desktop_view_proxy.h"

namespace vc::kubernetes {

class AgentTransport;  // agent_transport.h

// A kind of object in the namespace, as the URL names it.
enum class ObjectKind { pod, persistent_volume_claim, network_policy };

// "pods", "persistentvolumeclaims", "networkpolicies" and their API group paths.
std::string collection_path(ObjectKind kind, std::string_view name_space);
std::string object_path(ObjectKind kind, std::string_view name_space, std::string_view name);

// How a command run through the API's exec ended.
struct ExecResult {
  std::optional<int> exit_code;  // absent when it did not end by itself (see below)
  bool deadline_passed = false;  // the call's deadline ended it (the process may still run)
  bool abandoned = false;        // on_output said stop (the process may still run)
  std::string stdout_bytes;      // when not streamed (see ExecCall::on_output), bounded
  std::string stderr_bytes;
};

struct ExecCall {
  std::string pod;
  std::string container;
  std::vector<std::string> argv;
  // Attached as the command's standard input when not empty (otherwise the command has none).
  // The API's v4 protocol cannot say "end of input"; callers that need the command to see it
  // arrange it in the command (see command_exec.cpp).
  std::string stdin_bytes;
  // When set, output is handed here as it comes, on the calling thread, and not kept in
  // ExecResult; returning false abandons the call.
  std::function<bool(bool is_stderr, std::string_view bytes)> on_output;
  std::chrono::milliseconds deadline{30000};
};

class ClusterCalls {
 public:
  virtual ~ClusterCalls() = default;

  // The namespace every call works in.
  virtual const std::string& name_space() const = 0;
  // GET /version: {"gitVersion",...}; the first contact, for validate.
  virtual ApiExpected<nlohmann::json> server_version(sdk::CancelScope& scope) = 0;
  virtual ApiExpected<nlohmann::json> get(ObjectKind kind, const std::string& name,
                                          sdk::CancelScope& scope) = 0;
  // The items of a list with `label_selector`.
  virtual ApiExpected<std::vector<nlohmann::json>> list(ObjectKind kind,
                                                        const std::string& label_selector,
                                                        sdk::CancelScope& scope) = 0;
  virtual ApiExpected<nlohmann::json> create(ObjectKind kind, const nlohmann::json& object,
                                             sdk::CancelScope& scope) = 0;
  virtual ApiExpected<nlohmann::json> merge_patch(ObjectKind kind, const std::string& name,
                                                  const nlohmann::json& patch,
                                                  sdk::CancelScope& scope) = 0;
  // Deletes with foreground propagation and `grace` seconds; false when it did not exist.
  virtual ApiExpected<bool> remove(ObjectKind kind, const std::string& name,
                                   std::optional<std::int64_t> grace_seconds,
                                   sdk::CancelScope& scope) = 0;
  // Calls `on_pod` for each state of pod `name` (the current one first, then each change, with
  // nullptr when it is deleted) until it returns true, the deadline passes (kind timeout) or the
  // scope is cancelled. Returns the pod `on_pod` accepted (null when it accepted the deletion).
  virtual ApiExpected<nlohmann::json> watch_pod(
      const std::string& name, std::chrono::milliseconds deadline,
      const std::function<bool(const nlohmann::json* pod)>& on_pod, sdk::CancelScope& scope) = 0;
  // Runs a command in a container of a pod through the API's exec.
  virtual ApiExpected<ExecResult> exec(const ExecCall& call, sdk::CancelScope& scope) = 0;
  // The long-lived exec streams the in-computer agents use (agent_transport.h); nullptr where
  // there are none (a fake cluster), and commands then run one exec each.
  virtual AgentTransport* agent_transport() { return nullptr; }
  // Starts a listener on 127.0.0.1 that relays each connection to port `port` of `pod` over a
  // port-forward stream of its own (desktop_view_proxy.h), logging to `log`; a sentence where it
  // cannot (this
  // default: a cluster without port-forwarding, such as a fake one).
  virtual sdk::Expected<std::unique_ptr<DesktopViewProxy>, DesktopViewProxyError>
  open_desktop_view(const std::string& pod, std::uint16_t port, DesktopViewProxyOptions options,
                    sdk::HostLog log);
};

}  // namespace vc::kubernetes
