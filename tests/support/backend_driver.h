// backend_driver.h — drives a real backend plugin (.so) through the C ABI from a test, without
// the host: loads the module, creates one backend instance with the options a test chooses,
// starts operations with a vc_op whose complete/emit callbacks record everything, and waits for
// their completion on a condition variable.
//
// Used to test backend operations that are not MCP tools (restart, remove, factory_reset,
// list, ...) against a real engine, and to time single operations.
#pragma once

#include <chrono>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <vc-backend-1/vc_sdk.h>

#include "json.h"

namespace vc::test {

// How one operation ended.
struct OpOutcome {
  bool completed = false;    // false: still pending when the wait gave up
  bool rejected = false;     // the op function itself returned an error (no completion)
  vc_status status = VC_E_FAILED;
  Json document;   // result (status >= 0) or details (status < 0); null when none
  std::string message;       // failure message
  std::string out;           // VC_STREAM_STDOUT bytes (exec)
  std::string err;           // VC_STREAM_STDERR bytes (exec)
  std::vector<Json> progress;
  int contract_violations = 0;  // a second complete(), an emit() after complete()

  bool ok() const { return completed && status >= 0; }
  std::string describe() const;  // for assertion messages
};

// One operation in flight. Owned by the driver until it completes; the vc_op it hands the
// plugin stays valid as long as the driver lives.
class PendingOp {
 public:
  explicit PendingOp(std::string name);
  PendingOp(const PendingOp&) = delete;
  PendingOp& operator=(const PendingOp&) = delete;

  const std::string& name() const { return name_; }
  const vc_op* op() const { return &op_; }
  // Waits until complete() was called (or the op was rejected); false on timeout.
  bool wait(std::chrono::milliseconds timeout);
  OpOutcome outcome() const;
  bool done() const;

  // Output limit the "host" enforces: emit() answers VC_NOTE_TRUNCATED past this many bytes;
  // 0 = none. Set before starting the op.
  uint64_t truncate_after = 0;

 private:
  friend class BackendDriver;
  void reject(vc_status status);
  void set_cancelled() { cancelled_.store(true); }

  static void VC_CALL on_complete(const vc_op* op, vc_status status, const char* json,
                                  size_t json_len, const char* message, size_t message_len);
  static vc_status VC_CALL on_emit(const vc_op* op, vc_stream stream, const uint8_t* data,
                                   size_t len);
  static int32_t VC_CALL on_is_cancelled(const vc_op* op);

  std::string name_;
  vc_op op_{};
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;
  std::condition_variable done_;
  OpOutcome outcome_;
  uint64_t emitted_ = 0;
};

class BackendDriver {
 public:
  // Loads `plugin_path` and creates a backend. `options` maps declared option names to values
  // (as the host's parser would produce them); every declared option not in it gets its
  // declared default, as the host does. Throws std::runtime_error with the plugin's message
  // when loading or create_backend fails.
  BackendDriver(const std::filesystem::path& plugin_path, const Json& options,
                const std::filesystem::path& state_dir);
  // Cancels what is still pending, waits for it (bounded), then destroys the backend.
  ~BackendDriver();
  BackendDriver(const BackendDriver&) = delete;
  BackendDriver& operator=(const BackendDriver&) = delete;

  const vc_plugin_descriptor& descriptor() const { return *descriptor_; }
  // The config document create_backend() received.
  const Json& config() const { return config_; }

  // Starts operation `name` ("create", "exec", "list", ..., as in vc_backend_ops, or an
  // extension's: "desktop_action", "create_checkpoint", ...). `stdin_data`
  // is for exec only. Throws std::invalid_argument for an unknown name.
  std::shared_ptr<PendingOp> start(const std::string& name, const Json& request,
                                   const std::string& stdin_data = {},
                                   uint64_t truncate_after = 0);
  // start + wait; a still-pending op after `timeout` is cancelled and waited for briefly.
  OpOutcome run(const std::string& name, const Json& request,
                std::chrono::milliseconds timeout = std::chrono::seconds(180),
                const std::string& stdin_data = {});
  void cancel(PendingOp& op);

  // Lines the plugin logged through vc_host_services.log, "<level> <text>".
  std::vector<std::string> log_lines() const;

 private:
  static void VC_CALL on_log(const vc_host_services* host, vc_log_level level, const char* msg,
                             size_t msg_len);
  static const void* VC_CALL on_get_extension(const vc_host_services* host, const char* id);
  static int32_t VC_CALL on_is_loop_thread(const vc_host_services* host);
  // The function of an extension's op (checkpoints, processes): nullopt when `name` is no
  // extension op, NULL when the plugin does not offer that extension.
  std::optional<vc_async_op_fn> extension_op(const std::string& name) const;

  void* module_ = nullptr;
  const vc_plugin_descriptor* descriptor_ = nullptr;
  std::string state_dir_;
  Json config_;
  vc_host_services services_{};
  vc_host_thread_check thread_check_{};
  std::thread::id loop_thread_;
  vc_backend* backend_ = nullptr;
  std::vector<std::shared_ptr<PendingOp>> ops_;
  mutable std::mutex log_mutex_;
  std::vector<std::string> log_lines_;
};

}  // namespace vc::test
