// fake_host.h — the host side of the ABI, reduced to what a test needs: loads a plugin module,
// provides vc_host_services, and records everything an op reports (emits and completions).
#pragma once

#include <dlfcn.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <vc-backend-1/vc_sdk.h>

namespace vc_test {

// True while `pid` exists and is not a zombie. A killed grandchild is reparented, and whoever
// adopts it may reap it late; a zombie is dead all the same.
inline bool process_alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  auto state = stat.find(") ");
  return state != std::string::npos && stat.compare(state + 2, 1, "Z") != 0;
}

// A dlopen()ed plugin and its descriptor. The module stays loaded for the whole test run, as
// in the real host (which never unloads plugins).
class PluginModule {
 public:
  explicit PluginModule(const std::string& path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    void* symbol = dlsym(handle_, VC_ENTRY_SYMBOL);
    if (symbol == nullptr) throw std::runtime_error("entry symbol missing");
    entry_ = reinterpret_cast<vc_plugin_entry_fn>(symbol);
  }

  const vc_plugin_descriptor* descriptor(uint32_t host_abi_major = VC_ABI_MAJOR) const {
    vc_host_info info{};
    info.struct_size = sizeof info;
    info.abi_major = host_abi_major;
    info.abi_minor = VC_ABI_MINOR;
    info.host_name = "fake-host";
    info.host_version = "0.0.0";
    info.plugin_path = "";
    return entry_(&info);
  }

 private:
  void* handle_ = nullptr;
  vc_plugin_entry_fn entry_ = nullptr;
};

// vc_host_services with a log that is kept for inspection.
class FakeHost {
 public:
  explicit FakeHost(std::string state_dir) : state_dir_(std::move(state_dir)) {
    services_.struct_size = sizeof services_;
    services_.host_ctx = this;
    services_.log = &FakeHost::log_cb;
    services_.get_extension = &FakeHost::get_extension_cb;
    services_.state_dir = state_dir_.c_str();
  }
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  const vc_host_services* services() const { return &services_; }

  std::vector<std::string> log_lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  static void VC_CALL log_cb(const vc_host_services* host, vc_log_level, const char* msg,
                             size_t len) {
    auto* self = static_cast<FakeHost*>(host->host_ctx);
    std::lock_guard lock(self->mutex_);
    self->lines_.emplace_back(msg, len);
  }
  static const void* VC_CALL get_extension_cb(const vc_host_services*, const char*) {
    return nullptr;
  }

  std::string state_dir_;
  vc_host_services services_{};
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

// One op as the host sees it: records emits and the completion, and checks the ABI's rules
// (exactly one completion; no emit after it).
class FakeOp {
 public:
  FakeOp() {
    op_.struct_size = sizeof op_;
    op_.id = next_id();
    op_.host_ctx = this;
    op_.complete = &FakeOp::complete_cb;
    op_.emit = &FakeOp::emit_cb;
    op_.is_cancelled = &FakeOp::is_cancelled_cb;
  }
  FakeOp(const FakeOp&) = delete;
  FakeOp& operator=(const FakeOp&) = delete;

  const vc_op* get() const { return &op_; }
  uint64_t id() const { return op_.id; }

  // Acts as a 1.0 host: the vc_op ends where ABI 1.0 ended it, without an id.
  void as_abi_1_0() {
    op_.struct_size = offsetof(vc_op, id);
    op_.id = 0;
  }
  // A new op at this address, as a 1.1 host may hand out after the old one completed.
  void renumber() { op_.id = next_id(); }

  // Test knobs, set before starting the op.
  // The host's output limit, as the host keeps it: stdout and stderr bytes past it are dropped
  // and emit() answers VC_NOTE_TRUNCATED. 0 = none.
  uint64_t truncate_after = 0;
  int backpressure_every = 0;       // every Nth emit() answers VC_E_BACKPRESSURE
  std::atomic<bool> cancelled{false};  // what is_cancelled() answers

  bool wait(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::unique_lock lock(mutex_);
    return done_.wait_for(lock, timeout, [this] { return completions_ > 0; });
  }
  bool completed() {
    std::lock_guard lock(mutex_);
    return completions_ > 0;
  }

  int completions() { std::lock_guard lock(mutex_); return completions_; }
  int violations() { std::lock_guard lock(mutex_); return violations_; }
  vc_status status() { std::lock_guard lock(mutex_); return status_; }
  std::string json() { std::lock_guard lock(mutex_); return json_; }
  std::string message() { std::lock_guard lock(mutex_); return message_; }
  std::string out() { std::lock_guard lock(mutex_); return out_; }
  std::string err() { std::lock_guard lock(mutex_); return err_; }
  std::vector<std::string> progress() { std::lock_guard lock(mutex_); return progress_; }
  std::chrono::steady_clock::time_point completed_at() {
    std::lock_guard lock(mutex_);
    return completed_at_;
  }

 private:
  static FakeOp& self(const vc_op* op) { return *static_cast<FakeOp*>(op->host_ctx); }
  // Like a 1.1 host's: nonzero and never reused in the process.
  static uint64_t next_id() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }

  static void VC_CALL complete_cb(const vc_op* op, vc_status status, const char* json,
                                  size_t json_len, const char* message, size_t message_len) {
    FakeOp& me = self(op);
    std::lock_guard lock(me.mutex_);
    if (++me.completions_ > 1) ++me.violations_;
    me.status_ = status;
    me.json_ = json ? std::string(json, json_len) : std::string();
    me.message_ = message ? std::string(message, message_len) : std::string();
    me.completed_at_ = std::chrono::steady_clock::now();
    // Under the lock: the waiter may destroy this FakeOp as soon as it sees the completion.
    me.done_.notify_all();
  }

  static vc_status VC_CALL emit_cb(const vc_op* op, vc_stream stream, const uint8_t* data,
                                   size_t len) {
    FakeOp& me = self(op);
    std::lock_guard lock(me.mutex_);
    if (me.completions_ > 0) {
      ++me.violations_;
      return VC_E_INVALID_ARGUMENT;
    }
    ++me.emits_;
    if (me.backpressure_every > 0 && me.emits_ % me.backpressure_every == 0) {
      return VC_E_BACKPRESSURE;
    }
    std::string bytes(reinterpret_cast<const char*>(data), len);
    if (stream == VC_STREAM_PROGRESS) {
      me.progress_.push_back(bytes);
      return VC_OK;
    }
    if (stream != VC_STREAM_STDOUT && stream != VC_STREAM_STDERR) return VC_E_INVALID_ARGUMENT;
    bool truncated = false;
    if (me.truncate_after > 0 && me.emitted_ + len > me.truncate_after) {
      bytes.resize(me.truncate_after > me.emitted_ ? me.truncate_after - me.emitted_ : 0);
      truncated = true;
    }
    (stream == VC_STREAM_STDOUT ? me.out_ : me.err_) += bytes;
    me.emitted_ += len;
    return truncated ? VC_NOTE_TRUNCATED : VC_OK;
  }

  static int32_t VC_CALL is_cancelled_cb(const vc_op* op) { return self(op).cancelled.load(); }

  vc_op op_{};
  std::mutex mutex_;
  std::condition_variable done_;
  int completions_ = 0;
  int violations_ = 0;
  int emits_ = 0;
  uint64_t emitted_ = 0;
  vc_status status_ = 0;
  std::string json_, message_, out_, err_;
  std::vector<std::string> progress_;
  std::chrono::steady_clock::time_point completed_at_{};
};

}  // namespace vc_test
