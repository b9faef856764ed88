// computers_fake_backend.h — a scripted backend_proxy::Backend for the computers and tools tests.
//
// Like the real host side of the ABI, it never answers inside start(): every emit and
// completion is queued and delivered from a uv_idle_t on a later loop turn, so the tests
// exercise the same re-entrancy the production code sees. Each operation gets the next
// scripted reply for its kind, else a default (validate/ensure_image/create/exec succeed,
// attach answers VC_E_NOT_FOUND, wait_for_death stays pending). A held op stays pending until
// resolve() or a cancel; a cancelled op completes with VC_E_CANCELLED.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <uv.h>
#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/vc_status.h>

#include "common/json.h"
#include "backend_proxy/backend.h"

namespace vc::test_support {

inline constexpr const char* kFakeComputerId = "test-computer";
inline constexpr const char* kFakeSandboxId = "0123456789abcdef0123";

struct FakeReply {
  int32_t status = VC_OK;
  Json result = Json::object();
  std::string message;
  std::vector<std::pair<vc_stream, std::string>> emits;
  bool hold = false;

  static FakeReply ok(Json result, std::vector<std::pair<vc_stream, std::string>> emits = {}) {
    FakeReply reply;
    reply.result = std::move(result);
    reply.emits = std::move(emits);
    return reply;
  }
  static FakeReply fail(int32_t status, std::string message) {
    FakeReply reply;
    reply.status = status;
    reply.message = std::move(message);
    return reply;
  }
  static FakeReply held() {
    FakeReply reply;
    reply.hold = true;
    return reply;
  }
};

inline Json fake_computer_info(const std::string& computer_id = kFakeComputerId) {
  return Json{
      {"computer_id", computer_id}, {"sandbox_id", kFakeSandboxId}, {"state", "running"},
      {"temporary", false},         {"image", "fake:latest"},       {"created_at", nullptr},
      {"network_access", true},     {"desktop_environment", false}, {"desktop_url", nullptr}};
}

inline Json exec_result(int exit_code, const char* outcome = "exited", int64_t duration_ms = 7) {
  return Json{{"exit_code", exit_code}, {"outcome", outcome}, {"duration_ms", duration_ms}};
}

// One started operation, as the backend saw it.
struct FakeOp {
  backend_proxy::Operation op = backend_proxy::Operation::validate;
  Json request;
  std::string stdin_bytes;
  backend_proxy::OpCallbacks callbacks;
  bool cancel_requested = false;
  bool completed = false;
};

class FakeBackend : public backend_proxy::Backend {
 public:
  explicit FakeBackend(uv_loop_t* loop) {
    uv_idle_init(loop, &idle_);
    idle_.data = this;
    info_.id = "fake";
    info_.name = "Fake backend";
  }

  ~FakeBackend() override { EXPECT_TRUE(closed_) << "call close() and run the loop first"; }

  void script(backend_proxy::Operation op, FakeReply reply) { scripts_[op].push_back(std::move(reply)); }

  std::vector<std::shared_ptr<FakeOp>> started(backend_proxy::Operation op) const {
    std::vector<std::shared_ptr<FakeOp>> matching;
    for (const auto& record : ops_) {
      if (record->op == op) matching.push_back(record);
    }
    return matching;
  }
  size_t count(backend_proxy::Operation op) const { return started(op).size(); }
  const std::vector<std::shared_ptr<FakeOp>>& all_started() const { return ops_; }

  // Completes a held op on a later loop turn.
  void resolve(const std::shared_ptr<FakeOp>& record, FakeReply reply) {
    deliver_later(record, std::move(reply));
  }

  // Closes the uv handle (run the loop afterwards) and drops every callback still held.
  void close() {
    for (auto& record : ops_) record->callbacks = {};
    queue_.clear();
    uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
    closed_ = true;
  }

  const plugins::PluginInfo& info() const override { return info_; }
  // The ABI minor the fake plugin claims to be built for (0 unless set).
  void set_abi_minor(uint32_t minor) { info_.abi_minor = minor; }

  // Whether the fake offers the checkpoints extension (off unless set); its ops answer what
  // is scripted for them, else VC_E_UNSUPPORTED.
  void set_checkpoints(bool offered) { checkpoints_ = offered; }
  backend_proxy::ExtensionOffer checkpoints_offer() const override {
    backend_proxy::ExtensionOffer offer;
    offer.returned = checkpoints_;
    offer.usable = checkpoints_;
    return offer;
  }

  // Whether the fake offers the processes extension (off unless set), the same way.
  void set_processes(bool offered) { processes_ = offered; }
  backend_proxy::ExtensionOffer processes_offer() const override {
    backend_proxy::ExtensionOffer offer;
    offer.returned = processes_;
    offer.usable = processes_;
    return offer;
  }

  CancelHandle start(backend_proxy::Operation op, const Json& request, backend_proxy::OpCallbacks callbacks,
                     std::string_view stdin_bytes) override {
    auto record = std::make_shared<FakeOp>();
    record->op = op;
    record->request = request;
    record->stdin_bytes = std::string(stdin_bytes);
    record->callbacks = std::move(callbacks);
    ops_.push_back(record);
    FakeReply reply = next_reply(op);
    if (!reply.hold) deliver_later(record, std::move(reply));
    return std::make_shared<Cancel>(this, record);
  }

  size_t pending_ops() const override {
    size_t pending = 0;
    for (const auto& record : ops_) pending += record->completed ? 0 : 1;
    return pending;
  }

  void shutdown(uint64_t, std::function<void()> done) override { done(); }

 private:
  class Cancel : public Cancellable {
   public:
    Cancel(FakeBackend* backend, std::weak_ptr<FakeOp> record)
        : backend_(backend), record_(std::move(record)) {}
    void cancel() override {
      auto record = record_.lock();
      if (!record || record->completed || record->cancel_requested) return;
      record->cancel_requested = true;
      backend_->deliver_later(record,
                              FakeReply::fail(VC_E_CANCELLED, "The operation was cancelled."));
    }

   private:
    FakeBackend* backend_;
    std::weak_ptr<FakeOp> record_;
  };

  FakeReply next_reply(backend_proxy::Operation op) {
    auto& queue = scripts_[op];
    if (!queue.empty()) {
      FakeReply reply = std::move(queue.front());
      queue.pop_front();
      return reply;
    }
    switch (op) {
      case backend_proxy::Operation::validate:
        return FakeReply::ok(Json{{"engine", "fake"}});
      case backend_proxy::Operation::attach:
        return FakeReply::fail(VC_E_NOT_FOUND, "No computer named 'test-computer' exists.");
      case backend_proxy::Operation::ensure_image:
        return FakeReply::ok(Json{{"image", "fake:latest"}, {"action", "present"}});
      case backend_proxy::Operation::create:
        return FakeReply::ok(fake_computer_info());
      case backend_proxy::Operation::exec:
        return FakeReply::ok(exec_result(0));
      case backend_proxy::Operation::wait_for_death:
        return FakeReply::held();
      default:
        return FakeReply::fail(VC_E_UNSUPPORTED, "The fake backend does not support this.");
    }
  }

  void deliver_later(const std::shared_ptr<FakeOp>& record, FakeReply reply) {
    queue_.emplace_back([record, reply = std::move(reply)]() mutable {
      if (record->completed) return;
      if (record->cancel_requested && reply.status != VC_E_CANCELLED) {
        reply = FakeReply::fail(VC_E_CANCELLED, "The operation was cancelled.");
      }
      record->completed = true;
      backend_proxy::OpCallbacks callbacks = std::move(record->callbacks);
      record->callbacks = {};
      for (const auto& [stream, bytes] : reply.emits) callbacks.on_emit(stream, bytes);
      if (reply.status < 0) {
        callbacks.on_complete(Failure{reply.status, reply.message});
      } else {
        callbacks.on_complete(reply.result);
      }
    });
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) uv_idle_start(&idle_, &drain);
  }

  // Delivers what was queued before this turn; anything queued meanwhile waits a turn.
  static void drain(uv_idle_t* idle) {
    auto* self = static_cast<FakeBackend*>(idle->data);
    std::deque<std::function<void()>> batch;
    batch.swap(self->queue_);
    for (auto& delivery : batch) delivery();
    if (self->queue_.empty()) uv_idle_stop(idle);
  }

  uv_idle_t idle_{};
  bool closed_ = false;
  bool checkpoints_ = false;
  bool processes_ = false;
  plugins::PluginInfo info_;
  std::map<backend_proxy::Operation, std::deque<FakeReply>> scripts_;
  std::vector<std::shared_ptr<FakeOp>> ops_;
  std::deque<std::function<void()>> queue_;
};

// A test with a uv loop and a FakeBackend on it; TearDown drains and closes both.
class FakeBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(uv_loop_init(&loop_), 0);
    backend_ = std::make_shared<FakeBackend>(&loop_);
  }

  void TearDown() override {
    release_users();
    run();
    backend_->close();
    run();
    backend_.reset();
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }

  // Destroy what uses the backend (a registry, tools) before the backend goes.
  virtual void release_users() {}

  // Runs the loop until no delivery is queued.
  void run() { uv_run(&loop_, UV_RUN_DEFAULT); }

  uv_loop_t loop_{};
  std::shared_ptr<FakeBackend> backend_;
};

}  // namespace vc::test_support
