// plugin_backend.h — Backend implemented by a plugin instance behind the C ABI.
//
// Lifecycle: running -> (shutdown) draining -> closed. Every op gets an OpRecord; the plugin's
// emits and completion come back through the CompletionPump and are dispatched here, on the
// loop thread, in the order the plugin made them.
#pragma once

#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "backend_proxy/backend.h"
#include "backend_proxy/op_record.h"
#include "backend_proxy/plugin_instance.h"

namespace vc::backend_proxy {

class PluginBackend final : public Backend, public std::enable_shared_from_this<PluginBackend> {
 public:
  // Counters for diagnostics and tests. [any-thread]
  struct Stats {
    uint64_t backpressure_replies = 0;  // emits answered VC_E_BACKPRESSURE
    uint64_t misbehaviours = 0;         // plugin contract violations logged and dropped
  };

  // [loop-thread] Takes over `instance` (created with `services`) and opens its pump. On
  // failure the instance is destroyed.
  static Expected<std::shared_ptr<PluginBackend>> wrap(uv_loop_t* loop,
                                                       std::shared_ptr<plugins::PluginModule> module,
                                                       std::shared_ptr<HostServices> services,
                                                       PluginInstance instance);

  // [loop-thread] Without a finished shutdown(): cancels what is pending and destroys the
  // instance if nothing is pending, else abandons it (see shutdown()). No callback runs.
  ~PluginBackend() override;

  const plugins::PluginInfo& info() const override;
  uv_loop_t* loop() const override { return loop_; }
  CancelHandle start(Operation op, const Json& request, OpCallbacks callbacks,
                     std::string_view stdin_bytes = {}) override;
  ExtensionOffer checkpoints_offer() const override { return instance_.checkpoints_offer; }
  ExtensionOffer processes_offer() const override { return instance_.processes_offer; }
  size_t pending_ops() const override;
  void shutdown(uint64_t deadline_ms, std::function<void()> done) override;

  // [loop-thread] Asks one started op to stop: sets its is_cancelled flag and, once, calls
  // ops->cancel while the plugin has not completed it. Unknown or finished ops: no-op.
  void cancel(uint64_t op_id);

  Stats stats() const;

  // Construction goes through wrap(); the key keeps the constructor usable by make_shared only.
  struct ConstructionKey {
    explicit ConstructionKey() = default;
  };
  PluginBackend(ConstructionKey, uv_loop_t* loop, std::shared_ptr<plugins::PluginModule> module,
                std::shared_ptr<HostServices> services, PluginInstance instance);
  PluginBackend(const PluginBackend&) = delete;
  PluginBackend& operator=(const PluginBackend&) = delete;

 private:
  enum class State { running, draining, closed };

  // Records kept after their completion, so a late call from a misbehaving plugin (a second
  // complete, an emit after complete) finds a live record and is refused, not a freed one.
  static constexpr size_t kRetiredRecordsKept = 64;

  Expected<bool> open_pump();
  void invoke_plugin(OpRecord& record, const Json& request, std::string_view stdin_bytes);
  void handle_sync_rejection(OpRecord& record, vc_status status);
  void add_pending(std::unique_ptr<OpRecord> record);
  std::unique_ptr<OpRecord> take_pending(uint64_t op_id);
  void dispatch(std::vector<PumpEvent>& events);
  void deliver_completion(const PumpEvent& event);
  bool plugin_owes_completions() const;  // a pending op the plugin has not completed
  Expected<Json> read_completion(const OpRecord& record, const PumpEvent& event);
  void retire(std::unique_ptr<OpRecord> record);

  void schedule_shutdown_finish(uint64_t delay_ms);
  void finish_shutdown();
  void destroy_instance();
  void fail_undelivered();
  void abandon_instance(bool notify_callers);
  void close_handles(std::function<void()> closed);

  std::string backend_phrase() const;  // "The docker backend"

  uv_loop_t* const loop_;
  const std::shared_ptr<plugins::PluginModule> module_;  // keeps the plugin's code and descriptor alive
  const std::shared_ptr<OpChannel> channel_;
  PluginInstance instance_;

  State state_ = State::running;
  bool sync_rejection_reported_ = false;  // the 1.1 deprecation is logged once per instance
  std::unordered_map<uint64_t, std::unique_ptr<OpRecord>> pending_;
  std::deque<std::unique_ptr<OpRecord>> retired_;

  uv_timer_t* shutdown_timer_ = nullptr;  // draining only; freed by its close callback
  uint64_t shutdown_deadline_ms_ = 0;
  std::vector<std::function<void()>> shutdown_done_;
};

}  // namespace vc::backend_proxy
