#include "backend_proxy/plugin_backend.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <string>
#include <utility>

#include "plugin_loader/retain_forever.h"
#include "backend_proxy/status_text.h"
#include "common/uv_handles.h"

namespace vc::backend_proxy {

namespace {

// The output limit is the host's, whatever the plugin reports: a command whose output was cut
// exceeded it even when the plugin let it run to its end and says it exited. That breaks the
// exec contract (VC_NOTE_TRUNCATED means: end the command), so it is logged as such.
void report_cut_output(const OpRecord& record, Json& document) {
  if (record.output_limit == 0 ||
      record.output_bytes.load(std::memory_order_acquire) <= record.output_limit) {
    return;
  }
  auto outcome = document.find("outcome");
  if (outcome == document.end() || *outcome != "exited") return;
  *outcome = "output_limit_exceeded";
  record.channel->report_misbehaviour(
      "exec said \"exited\" although its output was cut at the host's limit (emit answered "
      "VC_NOTE_TRUNCATED: the command must be ended); reported as output_limit_exceeded");
}

class OpCancelHandle final : public Cancellable {
 public:
  OpCancelHandle(std::weak_ptr<PluginBackend> backend, uint64_t op_id)
      : backend_(std::move(backend)), op_id_(op_id) {}
  void cancel() override {
    if (auto backend = backend_.lock()) backend->cancel(op_id_);
  }

 private:
  std::weak_ptr<PluginBackend> backend_;
  uint64_t op_id_;
};

class FinishedCancelHandle final : public Cancellable {
 public:
  void cancel() override {}
};

vc_async_op_fn async_slot(const PluginInstance& instance, Operation operation) {
  const vc_backend_ops& ops = instance.ops;
  switch (operation) {
    case Operation::validate: return ops.validate;
    case Operation::ensure_image: return ops.ensure_image;
    case Operation::create: return ops.create;
    case Operation::attach: return ops.attach;
    case Operation::list: return ops.list;
    case Operation::restart: return ops.restart;
    case Operation::remove: return ops.remove;
    case Operation::factory_reset: return ops.factory_reset;
    case Operation::set_network_access: return ops.set_network_access;
    case Operation::get_desktop_environment: return ops.get_desktop_environment;
    case Operation::set_desktop_environment: return ops.set_desktop_environment;
    case Operation::wait_for_death: return ops.wait_for_death;
    case Operation::tool_instructions: return ops.tool_instructions;
    case Operation::desktop_action: return instance.desktop_control.desktop_action;
    case Operation::create_checkpoint: return instance.checkpoints.create_checkpoint;
    case Operation::list_checkpoints: return instance.checkpoints.list_checkpoints;
    case Operation::restore_checkpoint: return instance.checkpoints.restore_checkpoint;
    case Operation::fork_checkpoint: return instance.checkpoints.fork_checkpoint;
    case Operation::delete_checkpoint: return instance.checkpoints.delete_checkpoint;
    case Operation::start_process: return instance.processes.start_process;
    case Operation::read_process: return instance.processes.read_process;
    case Operation::write_process: return instance.processes.write_process;
    case Operation::kill_process: return instance.processes.kill_process;
    case Operation::list_processes: return instance.processes.list_processes;
    case Operation::exec: break;  // its own signature
  }
  return nullptr;
}

// Callers' callbacks run from libuv callbacks: an exception escaping them would unwind through
// C frames, so it is logged and swallowed here.
template <class Fn, class... Args>
void invoke_safely(const char* what, Fn& fn, Args&&... args) {
  if (!fn) return;
  try {
    fn(std::forward<Args>(args)...);
  } catch (const std::exception& error) {
    spdlog::error("{} threw: {}", what, error.what());
  } catch (...) {
    spdlog::error("{} threw a non-standard exception", what);
  }
}

// vc_op.id promises uniqueness for the life of the process, across every backend instance,
// so the counter is not per instance. It doubles as the record's key in its instance.
uint64_t next_op_id() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

// "[json.exception.parse_error.101] parse error at ..." -> "parse error at ..."
std::string without_exception_tag(const std::string& text) {
  if (text.empty() || text.front() != '[') return text;
  const size_t end = text.find("] ");
  return end == std::string::npos ? text : text.substr(end + 2);
}

}  // namespace

PluginBackend::PluginBackend(ConstructionKey, uv_loop_t* loop, std::shared_ptr<plugins::PluginModule> module,
                             std::shared_ptr<HostServices> services, PluginInstance instance)
    : loop_(loop),
      module_(std::move(module)),
      channel_(std::make_shared<OpChannel>()),
      instance_(instance) {
  channel_->services = std::move(services);
  channel_->backend_name = module_->info().name;
}

Expected<std::shared_ptr<PluginBackend>> PluginBackend::wrap(uv_loop_t* loop,
                                                             std::shared_ptr<plugins::PluginModule> module,
                                                             std::shared_ptr<HostServices> services,
                                                             PluginInstance instance) {
  auto backend = std::make_shared<PluginBackend>(ConstructionKey{}, loop, std::move(module),
                                                 std::move(services), instance);
  auto opened = backend->open_pump();
  if (!opened) {
    backend->destroy_instance();
    backend->state_ = State::closed;
    return Failure{opened.error().status,
                   backend->backend_phrase() + " failed to start: " + opened.error().message};
  }
  return backend;
}

Expected<bool> PluginBackend::open_pump() {
  std::weak_ptr<PluginBackend> weak = weak_from_this();
  auto pump = CompletionPump::open(loop_, [weak](std::vector<PumpEvent>& events) {
    // Holding a reference for the batch: a callback may drop the caller's last one.
    if (auto self = weak.lock()) self->dispatch(events);
  });
  if (!pump) return pump.error();
  channel_->pump = std::move(pump).value();
  return true;
}

PluginBackend::~PluginBackend() {
  if (state_ == State::closed) return;
  channel_->services->logger().warn(
      "{} was released without a finished shutdown(); cancelling {} pending operation(s)",
      backend_phrase(), pending_.size());
  std::vector<uint64_t> ids;
  for (const auto& [id, record] : pending_) ids.push_back(id);
  for (uint64_t id : ids) cancel(id);
  if (plugin_owes_completions())
    abandon_instance(false);
  else
    destroy_instance();
  state_ = State::closed;
  close_handles({});
}

const plugins::PluginInfo& PluginBackend::info() const { return module_->info(); }

size_t PluginBackend::pending_ops() const { return pending_.size(); }

PluginBackend::Stats PluginBackend::stats() const {
  Stats stats;
  stats.backpressure_replies = channel_->backpressure_replies.load(std::memory_order_relaxed);
  stats.misbehaviours = channel_->misbehaviours.load(std::memory_order_relaxed);
  return stats;
}

std::string PluginBackend::backend_phrase() const {
  return "The " + module_->info().name + " backend";
}

CancelHandle PluginBackend::start(Operation operation, const Json& request, OpCallbacks callbacks,
                                  std::string_view stdin_bytes) {
  if (state_ != State::running) {
    const std::string message =
        backend_phrase() + " is shutting down; " + operation_name(operation) + " was not started.";
    run_on_later_turn(loop_, [on_complete = std::move(callbacks.on_complete), message]() {
      invoke_safely("on_complete", on_complete, Expected<Json>(Failure{VC_E_UNAVAILABLE, message}));
    });
    return std::make_shared<FinishedCancelHandle>();
  }
  const uint64_t op_id = next_op_id();
  auto owned = std::make_unique<OpRecord>(op_id, operation, std::move(callbacks), channel_);
  OpRecord& record = *owned;
  add_pending(std::move(owned));
  invoke_plugin(record, request, stdin_bytes);
  return std::make_shared<OpCancelHandle>(weak_from_this(), op_id);
}

void PluginBackend::invoke_plugin(OpRecord& record, const Json& request,
                                  std::string_view stdin_bytes) {
  const std::string name = operation_name(record.operation);
  const std::string request_json = request.dump(-1, ' ', false, Json::error_handler_t::replace);
  const vc_async_op_fn async_fn = async_slot(instance_, record.operation);
  const bool is_exec = record.operation == Operation::exec;
  if (is_exec ? instance_.ops.exec == nullptr : async_fn == nullptr) {
    record.complete_from_host(
        Failure{VC_E_UNSUPPORTED, backend_phrase() + " does not support " + name + "."});
    return;
  }
  vc_status status = VC_E_FAILED;
  try {
    if (is_exec) {
      const auto* stdin_data = reinterpret_cast<const uint8_t*>(stdin_bytes.data());
      status = instance_.ops.exec(instance_.backend, request_json.data(), request_json.size(),
                                  stdin_bytes.empty() ? nullptr : stdin_data, stdin_bytes.size(),
                                  &record.abi);
    } else {
      status = async_fn(instance_.backend, request_json.data(), request_json.size(), &record.abi);
    }
  } catch (...) {
    channel_->report_misbehaviour(name + " threw a C++ exception across the C ABI");
    status = VC_E_FAILED;
  }
  if (status >= 0) {
    record.accepted_by_plugin = true;
    return;
  }
  handle_sync_rejection(record, status);
}

// A rejection is still honoured from every plugin (ABI 1.0 defines it), but it carries no
// message, so the user gets a generic sentence. From ABI 1.1 on a plugin should have completed
// the op with its own message instead; one warning per instance points its author at that
// without flooding the log on every call.
void PluginBackend::handle_sync_rejection(OpRecord& record, vc_status status) {
  const std::string name = operation_name(record.operation);
  const std::string code = "status " + std::to_string(status) + ", " + status_name(status);
  const bool completed_here = record.complete_from_host(Failure{
      normalise_status(status),
      backend_phrase() + " rejected " + name + " (" + code + ") without saying why."});
  if (!completed_here) {
    channel_->report_misbehaviour(name + " returned status " + std::to_string(status) +
                                  " after completing the op; its completion stands");
    return;
  }
  if (module_->info().abi_minor >= 1 && !sync_rejection_reported_) {
    sync_rejection_reported_ = true;
    channel_->report_misbehaviour(
        name + " was rejected synchronously (" + code + "), which ABI 1.1 deprecates: accept "
        "the op and complete it at once with the error and a message the user can act on "
        "(reported once per backend instance)");
  }
}

void PluginBackend::add_pending(std::unique_ptr<OpRecord> record) {
  const uint64_t id = record->id;
  pending_.emplace(id, std::move(record));
  if (pending_.size() == 1) channel_->pump->set_keeps_loop_alive(true);
}

std::unique_ptr<OpRecord> PluginBackend::take_pending(uint64_t op_id) {
  auto found = pending_.find(op_id);
  if (found == pending_.end()) return nullptr;
  std::unique_ptr<OpRecord> record = std::move(found->second);
  pending_.erase(found);
  if (pending_.empty()) channel_->pump->set_keeps_loop_alive(false);
  return record;
}

bool PluginBackend::plugin_owes_completions() const {
  for (const auto& [id, record] : pending_) {
    if (!record->completed.load(std::memory_order_acquire)) return true;
  }
  return false;
}

void PluginBackend::dispatch(std::vector<PumpEvent>& events) {
  for (PumpEvent& event : events) {
    if (event.kind == PumpEvent::Kind::complete) {
      deliver_completion(event);
      continue;
    }
    auto found = pending_.find(event.op_id);
    if (found == pending_.end()) {
      channel_->report_misbehaviour("emit for finished op " + std::to_string(event.op_id) +
                                    " arrived; dropped");
      continue;
    }
    OpRecord& record = *found->second;
    record.queued_bytes.fetch_sub(event.payload.size(), std::memory_order_acq_rel);
    invoke_safely("on_emit", record.callbacks.on_emit, event.stream,
                  std::string_view(event.payload));
  }
}

void PluginBackend::deliver_completion(const PumpEvent& event) {
  std::unique_ptr<OpRecord> record = take_pending(event.op_id);
  if (!record) {
    channel_->report_misbehaviour("completion for finished op " + std::to_string(event.op_id) +
                                  " arrived; dropped");
    return;
  }
  Expected<Json> result = event.from_host ? Expected<Json>(Failure{event.status, event.message})
                                          : read_completion(*record, event);
  std::function<void(Expected<Json>)> on_complete = std::move(record->callbacks.on_complete);
  record->callbacks = OpCallbacks{};
  retire(std::move(record));
  invoke_safely("on_complete", on_complete, std::move(result));
  if (state_ == State::draining && pending_.empty()) schedule_shutdown_finish(0);
}

Expected<Json> PluginBackend::read_completion(const OpRecord& record, const PumpEvent& event) {
  const std::string name = operation_name(record.operation);
  if (event.status < 0) {
    if (!event.payload.empty()) {
      channel_->services->logger().debug("{} failed with details {}", name, event.payload);
    }
    if (event.message.empty()) {
      return Failure{normalise_status(event.status),
                     backend_phrase() + " failed " + name + " (status " +
                         std::to_string(event.status) + ", " + status_name(event.status) +
                         ") without saying why."};
    }
    return Failure{normalise_status(event.status), event.message};
  }
  if (event.payload.empty()) {
    return Failure{VC_E_FAILED,
                   backend_phrase() + " returned no result document for " + name + "."};
  }
  try {
    Json document = Json::parse(event.payload);
    if (!document.is_object()) {
      return Failure{VC_E_FAILED, backend_phrase() + " returned a result for " + name +
                                      " that is not a JSON object."};
    }
    if (record.operation == Operation::exec) report_cut_output(record, document);
    return document;
  } catch (const std::exception& error) {
    return Failure{VC_E_FAILED, backend_phrase() + " returned invalid JSON for " + name + ": " +
                                    without_exception_tag(error.what())};
  }
}

void PluginBackend::retire(std::unique_ptr<OpRecord> record) {
  retired_.push_back(std::move(record));
  while (retired_.size() > kRetiredRecordsKept) retired_.pop_front();
}

void PluginBackend::cancel(uint64_t op_id) {
  if (instance_.backend == nullptr) return;  // destroyed or abandoned
  auto found = pending_.find(op_id);
  if (found == pending_.end()) return;
  OpRecord& record = *found->second;
  record.cancel_requested.store(true, std::memory_order_release);
  // Pushed once, and only while the plugin still owns the op (the ABI allows a late cancel,
  // but there is no reason to send one).
  if (!record.accepted_by_plugin || record.cancel_pushed ||
      record.completed.load(std::memory_order_acquire) || instance_.ops.cancel == nullptr) {
    return;
  }
  record.cancel_pushed = true;
  try {
    instance_.ops.cancel(instance_.backend, &record.abi);
  } catch (...) {
    channel_->report_misbehaviour("cancel threw a C++ exception across the C ABI");
  }
}

void PluginBackend::shutdown(uint64_t deadline_ms, std::function<void()> done) {
  if (state_ == State::closed) {
    if (done) run_on_later_turn(loop_, std::move(done));
    return;
  }
  shutdown_done_.push_back(std::move(done));
  if (state_ == State::draining) return;

  state_ = State::draining;
  shutdown_deadline_ms_ = deadline_ms;
  shutdown_timer_ = new uv_timer_t;
  uv_timer_init(loop_, shutdown_timer_);
  shutdown_timer_->data = this;
  std::vector<uint64_t> ids;
  for (const auto& [id, record] : pending_) ids.push_back(id);
  for (uint64_t id : ids) cancel(id);
  schedule_shutdown_finish(pending_.empty() ? 0 : deadline_ms);
}

void PluginBackend::schedule_shutdown_finish(uint64_t delay_ms) {
  if (shutdown_timer_ == nullptr) return;
  uv_timer_start(
      shutdown_timer_,
      [](uv_timer_t* timer) { static_cast<PluginBackend*>(timer->data)->finish_shutdown(); },
      delay_ms, 0);
}

void PluginBackend::finish_shutdown() {
  // The done callbacks may release the caller's last reference.
  const std::shared_ptr<PluginBackend> self = shared_from_this();
  uv_timer_stop(shutdown_timer_);
  channel_->pump->drain();  // completions already posted count as finished
  if (plugin_owes_completions()) {
    abandon_instance(true);
    state_ = State::closed;
  } else {
    state_ = State::closed;
    destroy_instance();
    // A plugin thread may have set `completed` but posted its event only just before destroy()
    // joined it: deliver those too, so every caller hears exactly once.
    channel_->pump->drain();
    fail_undelivered();
  }

  std::vector<std::function<void()>> waiters = std::move(shutdown_done_);
  shutdown_done_.clear();
  close_handles([waiters = std::move(waiters)]() mutable {
    for (std::function<void()>& done : waiters) invoke_safely("shutdown done", done);
  });
}

void PluginBackend::destroy_instance() {
  if (instance_.backend == nullptr) return;
  vc_backend* backend = std::exchange(instance_.backend, nullptr);
  try {
    instance_.ops.destroy(backend);
  } catch (...) {
    spdlog::error("{}: destroy threw a C++ exception across the C ABI", backend_phrase());
  }
  // destroy() joined the plugin's threads: no late call can reach a record any more.
  retired_.clear();
}

void PluginBackend::fail_undelivered() {
  std::unordered_map<uint64_t, std::unique_ptr<OpRecord>> undelivered = std::move(pending_);
  pending_.clear();
  for (auto& [id, record] : undelivered) {
    channel_->report_misbehaviour(std::string(operation_name(record->operation)) +
                                  " was marked complete but its completion never arrived");
    invoke_safely(
        "on_complete", record->callbacks.on_complete,
        Expected<Json>(Failure{VC_E_FAILED, backend_phrase() + " lost the result of " +
                                                operation_name(record->operation) + "."}));
  }
}

void PluginBackend::abandon_instance(bool notify_callers) {
  channel_->services->logger().warn(
      "{} still owes {} operation(s) {}; not destroying its instance (leaking it is safer than "
      "calling into live plugin threads)",
      backend_phrase(), pending_.size(),
      notify_callers
          ? "after the " + std::to_string(shutdown_deadline_ms_) + " ms shutdown deadline"
          : "as it is released");
  // Everything a late plugin call can reach stays alive: records, pump, services, instance.
  plugins::retain_forever(channel_);
  plugins::retain_forever(std::make_shared<vc_backend*>(std::exchange(instance_.backend, nullptr)));
  for (std::unique_ptr<OpRecord>& record : retired_) {
    plugins::retain_forever(std::shared_ptr<OpRecord>(std::move(record)));
  }
  retired_.clear();
  std::unordered_map<uint64_t, std::unique_ptr<OpRecord>> abandoned = std::move(pending_);
  pending_.clear();
  for (auto& [id, owned] : abandoned) {
    std::shared_ptr<OpRecord> record(std::move(owned));
    record->completed.store(true, std::memory_order_release);  // late completions are dropped
    std::function<void(Expected<Json>)> on_complete = std::move(record->callbacks.on_complete);
    record->callbacks = OpCallbacks{};
    plugins::retain_forever(record);
    if (!notify_callers) continue;
    invoke_safely("on_complete", on_complete,
                  Expected<Json>(
                      Failure{VC_E_TIMEOUT, backend_phrase() + " did not finish " +
                                                operation_name(record->operation) + " within the " +
                                                std::to_string(shutdown_deadline_ms_) +
                                                " ms shutdown deadline; it was abandoned."}));
  }
}

void PluginBackend::close_handles(std::function<void()> closed) {
  auto remaining = std::make_shared<int>(0);
  if (shutdown_timer_ != nullptr) ++*remaining;
  if (channel_->pump) ++*remaining;
  if (*remaining == 0) {
    if (closed) closed();
    return;
  }
  auto one_closed = [remaining, closed = std::move(closed)]() {
    if (--*remaining == 0 && closed) closed();
  };
  if (shutdown_timer_ != nullptr)
    close_and_delete(std::exchange(shutdown_timer_, nullptr), one_closed);
  if (channel_->pump) channel_->pump->close(one_closed);
}

}  // namespace vc::backend_proxy
