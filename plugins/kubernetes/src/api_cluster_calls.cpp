// api_cluster_calls.cpp — ClusterCalls on the asynchronous transport: each call is started on
// the API thread and waited for on the calling lane thread; events of watches and exec streams
// go through a small queue so that the caller's callbacks run on its own thread.
// Thread rule: see api_cluster_calls.h.
#include "api_cluster_calls.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <variant>

#include "api_client.h"
#include "api_loop.h"
#include "api_watch.h"
#include "agent_transport.h"
#include "api_loop_clock.h"
#include "exec_stream.h"
#include "kubeconfig.h"

namespace vc::kubernetes {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Output queued from an exec stream beyond this pauses reading until the caller catches up.
constexpr std::size_t kExecQueueHighWater = 4 * 1024 * 1024;
// Kept of a command's output when the caller does not stream it.
constexpr std::size_t kKeptOutputBytes = 1024 * 1024;
// stdin goes to the stream in pieces of this size.
constexpr std::size_t kStdinPiece = 256 * 1024;
// A pod watch asks the server to end it after this long, and is opened again.
constexpr std::chrono::seconds kWatchSpan{300};
// An exec the node refuses with "container not found" is tried again this often, after this
// delay times the attempt (a pod that has just replaced another is running in the API before
// the node routes execs to its container; nothing ran, so trying again is safe).
constexpr int kExecRoutingRetries = 4;
constexpr std::chrono::milliseconds kExecRoutingRetryDelay{250};

// Whether the node refused an exec because it does not (yet) know the pod's container.
bool container_not_routed(const ApiError& error) {
  return error.kind == ApiErrorKind::server &&
         error.message.find("container not found") != std::string::npos;
}

// A value the API thread hands to one waiting thread.
template <class T>
class Handoff {
 public:
  void set(T value) {
    {
      std::lock_guard lock(mutex_);
      value_.emplace(std::move(value));
    }
    ready_.notify_all();
  }
  T wait() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return value_.has_value(); });
    return std::move(*value_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::optional<T> value_;
};

// Events from the API thread, taken in order by the waiting thread.
template <class Event>
class EventQueue {
 public:
  void push(Event event, std::size_t bytes = 0) {
    {
      std::lock_guard lock(mutex_);
      events_.push_back(std::move(event));
      queued_bytes_ += bytes;
    }
    ready_.notify_all();
  }
  // The next event, or nullopt when `deadline` passed first.
  std::optional<Event> pop_until(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    if (!ready_.wait_until(lock, deadline, [this] { return !events_.empty(); })) return std::nullopt;
    Event event = std::move(events_.front());
    events_.pop_front();
    return event;
  }
  void consumed(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    queued_bytes_ -= std::min(bytes, queued_bytes_);
  }
  std::size_t queued_bytes() {
    std::lock_guard lock(mutex_);
    return queued_bytes_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Event> events_;
  std::size_t queued_bytes_ = 0;
};

class ApiClusterCalls final : public ClusterCalls, public AgentTransport {
 public:
  ApiClusterCalls(std::unique_ptr<ApiLoop> loop, ApiEndpoint endpoint,
                  std::unique_ptr<ApiClient> client, std::string name_space)
      : loop_(std::move(loop)),
        endpoint_(std::move(endpoint)),
        client_(std::move(client)),
        name_space_(std::move(name_space)),
        clock_(*loop_) {}

  ~ApiClusterCalls() override {
    client_.reset();  // its calls in flight end as cancelled
    loop_->stop_and_join();
  }

  const std::string& name_space() const override { return name_space_; }

  ApiExpected<json> server_version(sdk::CancelScope& scope) override {
    auto version = call({.method = HttpMethod::get, .path = "/version"}, scope);
    if (!version) return version.error();
    // The namespace must exist: listing in a missing one succeeds, creating fails later.
    auto space = call({.method = HttpMethod::get, .path = "/api/v1/namespaces/" + name_space_},
                      scope);
    if (!space && space.error().kind == ApiErrorKind::not_found) {
      return ApiError{ApiErrorKind::not_found, 404, "NotFound",
                      "The namespace " + name_space_ + " does not exist in the cluster at " +
                          endpoint_.server + ". Create it (kubectl create namespace " +
                          name_space_ + ") or choose another with --namespace."};
    }
    // Credentials that may not read namespaces may still work inside this one: go on.
    return std::move(version).value().body;
  }

  ApiExpected<json> get(ObjectKind kind, const std::string& name,
                        sdk::CancelScope& scope) override {
    auto answer = call({.method = HttpMethod::get, .path = object_path(kind, name_space_, name)},
                       scope);
    if (!answer) return answer.error();
    return std::move(answer).value().body;
  }

  ApiExpected<std::vector<json>> list(ObjectKind kind, const std::string& label_selector,
                                      sdk::CancelScope& scope) override {
    auto answer = call({.method = HttpMethod::get,
                        .path = collection_path(kind, name_space_),
                        .query = list_query({.label_selector = label_selector})},
                       scope);
    if (!answer) return answer.error();
    std::vector<json> items;
    const json& body = answer.value().body;
    if (body.is_object() && body.contains("items") && body["items"].is_array()) {
      for (const json& item : body["items"]) items.push_back(item);
    }
    return items;
  }

  ApiExpected<json> create(ObjectKind kind, const json& object,
                           sdk::CancelScope& scope) override {
    auto answer = call({.method = HttpMethod::post,
                        .path = collection_path(kind, name_space_),
                        .body = object},
                       scope);
    if (!answer) return answer.error();
    return std::move(answer).value().body;
  }

  ApiExpected<json> merge_patch(ObjectKind kind, const std::string& name, const json& patch,
                                sdk::CancelScope& scope) override {
    auto answer = call({.method = HttpMethod::patch,
                        .path = object_path(kind, name_space_, name),
                        .body = patch,
                        .body_type = BodyType::merge_patch},
                       scope);
    if (!answer) return answer.error();
    return std::move(answer).value().body;
  }

  ApiExpected<bool> remove(ObjectKind kind, const std::string& name,
                           std::optional<std::int64_t> grace_seconds,
                           sdk::CancelScope& scope) override {
    DeleteOptions options{.propagation_policy = "Background"};
    if (grace_seconds) options.grace_period_seconds = static_cast<int>(*grace_seconds);
    const json body = delete_options_body(options);
    ApiRequest request{.method = HttpMethod::delete_, .path = object_path(kind, name_space_, name)};
    if (!body.is_null()) request.body = body;
    auto answer = call(std::move(request), scope);
    if (answer) return true;
    if (answer.error().kind == ApiErrorKind::not_found) return false;
    return answer.error();
  }

  ApiExpected<json> watch_pod(const std::string& name, std::chrono::milliseconds deadline,
                              const std::function<bool(const json* pod)>& on_pod,
                              sdk::CancelScope& scope) override;

  ApiExpected<ExecResult> exec(const ExecCall& call, sdk::CancelScope& scope) override;
  ApiExpected<ExecResult> exec_once(const ExecCall& call, sdk::CancelScope& scope);

  AgentTransport* agent_transport() override { return this; }
  void post(std::function<void()> task) override { loop_->post(std::move(task)); }
  agent_channel::ChannelClock& clock() override { return clock_; }
  std::shared_ptr<ExecStream> start_exec(ExecRequest request, ExecCallbacks callbacks) override {
    request.namespace_name = name_space_;
    return ExecStream::start(*loop_, endpoint_, std::move(request), std::move(callbacks));
  }

  sdk::Expected<std::unique_ptr<DesktopViewProxy>, DesktopViewProxyError> open_desktop_view(
      const std::string& pod, std::uint16_t port, DesktopViewProxyOptions options,
      sdk::HostLog log) override {
    PortForwardRequest request;
    request.namespace_name = name_space_;
    request.port = port;
    return DesktopViewProxy::start(*loop_, pod, port_forward_opener(*loop_, endpoint_, request),
                                   std::move(options), std::move(log));
  }

 private:
  ApiExpected<ApiResponse> call(ApiRequest request, sdk::CancelScope& scope) {
    if (scope.cancelled()) return cancelled_error();
    auto answer = std::make_shared<Handoff<ApiExpected<ApiResponse>>>();
    ApiCallHandle handle = client_->request(
        std::move(request), [answer](ApiExpected<ApiResponse> result) { answer->set(std::move(result)); });
    scope.set_canceller([handle] { handle.cancel(); });
    auto result = answer->wait();
    scope.clear();
    return result;
  }

  static ApiError cancelled_error() {
    return ApiError{ApiErrorKind::cancelled, 0, "", "The operation was cancelled."};
  }

  std::unique_ptr<ApiLoop> loop_;
  ApiEndpoint endpoint_;
  std::unique_ptr<ApiClient> client_;
  std::string name_space_;
  ApiLoopClock clock_;
};

// --- watch_pod ----------------------------------------------------------------------------------

// What a pod watch hands the waiting thread.
struct PodEvent {
  std::optional<json> pod;  // nullopt: deleted
  bool ended = false;       // the watch ended; `end` says how
  std::optional<ApiError> end_error;
};

ApiExpected<json> ApiClusterCalls::watch_pod(const std::string& name,
                                             std::chrono::milliseconds deadline,
                                             const std::function<bool(const json* pod)>& on_pod,
                                             sdk::CancelScope& scope) {
  const auto until = Clock::now() + deadline;
  const std::string field_selector = "metadata.name=" + name;
  while (true) {
    // The pod as it is now, and the version to watch from.
    auto listed = call({.method = HttpMethod::get,
                        .path = collection_path(ObjectKind::pod, name_space_),
                        .query = list_query({.field_selector = field_selector})},
                       scope);
    if (!listed) return listed.error();
    const json& body = listed.value().body;
    const json* current = nullptr;
    if (body.is_object() && body.contains("items") && body["items"].is_array() &&
        !body["items"].empty()) {
      current = &body["items"][0];
    }
    if (on_pod(current)) return current ? *current : json();
    std::string version;
    if (body.is_object() && body.contains("metadata") && body["metadata"].is_object()) {
      version = body["metadata"].value("resourceVersion", "");
    }

    auto events = std::make_shared<EventQueue<PodEvent>>();
    const auto remaining = std::chrono::duration_cast<std::chrono::seconds>(until - Clock::now());
    WatchHandle watching = watch(
        *client_,
        {.path = collection_path(ObjectKind::pod, name_space_),
         .resource_version = version,
         .field_selector = field_selector,
         .timeout_seconds = static_cast<int>(std::clamp<std::int64_t>(remaining.count() + 1, 1,
                                                                      kWatchSpan.count()))},
        [events](WatchEvent event) {
          if (event.type == WatchEventType::added || event.type == WatchEventType::modified) {
            events->push(PodEvent{std::move(event.object), false, std::nullopt});
          } else if (event.type == WatchEventType::deleted) {
            events->push(PodEvent{std::nullopt, false, std::nullopt});
          }
        },
        [events](ApiExpected<void> end) {
          events->push(PodEvent{std::nullopt, true,
                                end ? std::nullopt : std::optional<ApiError>(end.error())});
        });
    scope.set_canceller([watching] { watching.stop(); });
    std::optional<ApiExpected<json>> outcome;
    bool watch_ended = false;
    while (!outcome) {
      auto event = events->pop_until(until);
      if (!event) {
        outcome = ApiError{ApiErrorKind::timeout, 0, "",
                           "The pod " + name + " did not reach the awaited state in time."};
        break;
      }
      if (event->ended) {
        watch_ended = true;
        if (event->end_error && event->end_error->kind != ApiErrorKind::gone) {
          outcome = *event->end_error;
        }
        break;  // ended by the server (span over) or gone: list and watch again
      }
      const json* pod = event->pod ? &*event->pod : nullptr;
      if (on_pod(pod)) outcome = pod ? *pod : json();
    }
    scope.clear();
    if (!watch_ended) {
      watching.stop();
      // Wait for its end, so that nothing of this watch outlives the call.
      while (true) {
        auto event = events->pop_until(Clock::now() + std::chrono::seconds(30));
        if (!event || event->ended) break;
      }
    }
    if (outcome) return std::move(*outcome);
    if (scope.cancelled()) return cancelled_error();
    if (Clock::now() >= until) {
      return ApiError{ApiErrorKind::timeout, 0, "",
                      "The pod " + name + " did not reach the awaited state in time."};
    }
  }
}

// --- exec ---------------------------------------------------------------------------------------

struct ExecEvent {
  enum class Kind { stdout_bytes, stderr_bytes, drained, exit } kind = Kind::exit;
  std::string bytes;
  std::optional<ApiExpected<ExecExit>> exit;
};

ApiExpected<ExecResult> ApiClusterCalls::exec(const ExecCall& call, sdk::CancelScope& scope) {
  for (int attempt = 1;; ++attempt) {
    auto ran = exec_once(call, scope);
    if (ran || !container_not_routed(ran.error()) || attempt > kExecRoutingRetries) return ran;
    if (scope.cancelled()) return cancelled_error();
    std::this_thread::sleep_for(kExecRoutingRetryDelay * attempt);
  }
}

ApiExpected<ExecResult> ApiClusterCalls::exec_once(const ExecCall& call, sdk::CancelScope& scope) {
  if (scope.cancelled()) return cancelled_error();
  auto events = std::make_shared<EventQueue<ExecEvent>>();
  ExecRequest request;
  request.namespace_name = name_space_;
  request.pod = call.pod;
  request.container = call.container;
  request.command = call.argv;
  request.with_stdin = !call.stdin_bytes.empty();
  ExecCallbacks callbacks;
  callbacks.on_stdout = [events](std::string_view bytes) {
    events->push({ExecEvent::Kind::stdout_bytes, std::string(bytes), std::nullopt}, bytes.size());
  };
  callbacks.on_stderr = [events](std::string_view bytes) {
    events->push({ExecEvent::Kind::stderr_bytes, std::string(bytes), std::nullopt}, bytes.size());
  };
  callbacks.on_stdin_drained = [events] {
    events->push({ExecEvent::Kind::drained, {}, std::nullopt});
  };
  callbacks.on_exit = [events](ApiExpected<ExecExit> exit) {
    events->push({ExecEvent::Kind::exit, {}, std::move(exit)});
  };
  auto stream = ExecStream::start(*loop_, endpoint_, std::move(request), std::move(callbacks));
  scope.set_canceller([stream] { stream->cancel(); });

  const auto until = Clock::now() + call.deadline;
  std::size_t stdin_sent = 0;
  bool paused = false;
  ExecResult result;
  // Feeds stdin while the queue takes it; true when all of it is queued.
  auto feed_stdin = [&] {
    while (stdin_sent < call.stdin_bytes.size()) {
      const std::size_t size = std::min(kStdinPiece, call.stdin_bytes.size() - stdin_sent);
      const WriteAdmission admission = stream->write_stdin(call.stdin_bytes.substr(stdin_sent, size));
      if (admission != WriteAdmission::queued) return admission == WriteAdmission::ended;
      stdin_sent += size;
    }
    stream->close_stdin();
    return true;
  };
  if (!call.stdin_bytes.empty()) feed_stdin();

  std::optional<ApiExpected<ExecResult>> outcome;
  while (!outcome) {
    auto event = events->pop_until(until);
    if (!event) {
      result.deadline_passed = true;
      stream->cancel();
      outcome = result;
      break;
    }
    switch (event->kind) {
      case ExecEvent::Kind::drained: feed_stdin(); break;
      case ExecEvent::Kind::stdout_bytes:
      case ExecEvent::Kind::stderr_bytes: {
        const bool is_stderr = event->kind == ExecEvent::Kind::stderr_bytes;
        events->consumed(event->bytes.size());
        if (call.on_output) {
          if (!call.on_output(is_stderr, event->bytes)) {
            result.abandoned = true;
            stream->cancel();
            outcome = result;
          }
        } else {
          std::string& kept = is_stderr ? result.stderr_bytes : result.stdout_bytes;
          kept.append(event->bytes.substr(0, kKeptOutputBytes - std::min(kKeptOutputBytes, kept.size())));
        }
        break;
      }
      case ExecEvent::Kind::exit: {
        ApiExpected<ExecExit>& exit = *event->exit;
        if (!exit) {
          outcome = exit.error();
        } else if (exit.value().exit_code) {
          result.exit_code = exit.value().exit_code;
          outcome = result;
        } else {
          outcome = ApiError{ApiErrorKind::server, 0, exit.value().reason,
                             "The command could not run in pod " + call.pod + " (container " +
                                 call.container + "): " + bounded_quote(exit.value().message)};
        }
        break;
      }
    }
    // Reading resumes once the caller has taken what piled up.
    const std::size_t queued = events->queued_bytes();
    if (!paused && queued > kExecQueueHighWater) {
      stream->pause_output();
      paused = true;
    } else if (paused && queued < kExecQueueHighWater / 2) {
      stream->resume_output();
      paused = false;
    }
  }
  scope.clear();
  if (outcome->ok() && (result.abandoned || result.deadline_passed)) {
    // The stream was cancelled: wait for its end so that no callback outlives the call.
    while (true) {
      auto event = events->pop_until(Clock::now() + std::chrono::seconds(30));
      if (!event || event->kind == ExecEvent::Kind::exit) break;
    }
  }
  return std::move(*outcome);
}

}  // namespace

ConfigExpected<std::unique_ptr<ClusterCalls>> connect_to_cluster(const KubernetesOptions& options) {
  KubeconfigRequest request;
  request.kubeconfig_path = options.kubeconfig;
  request.context = options.context;
  request.environment = KubeconfigEnvironment::of_this_process();
  auto endpoint = load_api_endpoint(request);
  if (!endpoint) return endpoint.error();
  auto loop = std::make_unique<ApiLoop>();
  ApiClientOptions client_options;
  client_options.request_timeout = options.api_timeout;
  auto client = ApiClient::create(*loop, endpoint.value(), client_options);
  if (!client) return ConfigError{client.error().message};
  return std::unique_ptr<ClusterCalls>(std::make_unique<ApiClusterCalls>(
      std::move(loop), std::move(endpoint).value(), std::move(client).value(),
      options.computer_namespace));
}

}  // namespace vc::kubernetes
