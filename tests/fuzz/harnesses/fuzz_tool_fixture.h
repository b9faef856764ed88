// fuzz_tool_fixture.h — the real tool catalog over a computer that is not there, for the
// harnesses that drive whole requests (mcp_session, http_endpoint).
//
// FakeBackend answers every operation the way a healthy engine backend would, with a document
// of the op's schema, and never inside start(): each completion is delivered from a uv_idle_t
// on a later loop turn, as the real completion pump does, so a fuzzed request meets the same
// re-entrancy as in production. The computer is created on first use (attach says "not
// found"), the image step reports progress, the file scripts get output in their formats, the
// checkpoints and processes extensions are offered (every op succeeds), and wait_for_death stays
// pending until it is cancelled. Nothing here keeps per-operation state
// after the operation completed: a long input cannot make it grow.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>
#include <uv.h>
#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/vc_status.h>

#include "common/base64.h"
#include "common/json.h"
#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "fixtures/conformance_fixtures.h"
#include "mcp/content_catalog.h"
#include "mcp/tool.h"
#include "backend_proxy/backend.h"
#include "tools/file_scripts.h"
#include "tools/tool_catalog.h"

namespace vc::fuzz {

// Turns the host's logging off once per process: millions of inputs would otherwise spend
// their time writing log lines nobody reads.
inline void silence_logging() {
  static const bool silenced = [] {
    spdlog::set_level(spdlog::level::off);
    return true;
  }();
  (void)silenced;
}

inline constexpr const char* kComputerId = "fuzz-computer";
// What read_file finds in every file, and what list_directory finds in every directory.
inline constexpr std::string_view kFileText = "hello world\nsecond line\n";
inline constexpr char kListingBytes[] = "notes.txt\0" "f\0" "12\0" "src\0" "d\0" "4096\0";
inline constexpr std::string_view kListing(kListingBytes, sizeof kListingBytes - 1);

class FakeBackend final : public backend_proxy::Backend {
 public:
  explicit FakeBackend(uv_loop_t* loop) {
    uv_idle_init(loop, &idle_);
    idle_.data = this;
    info_.id = "org.example.fuzz";
    info_.name = "fuzz";
    info_.version = "1.0.0";
  }

  // Drops what is still queued or held and closes the idle handle; run the loop afterwards.
  void close() {
    queue_.clear();
    held_.clear();
    uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
  }

  // Deliveries still queued: the loop has work to do.
  bool busy() const { return !queue_.empty(); }

  const plugins::PluginInfo& info() const override { return info_; }

  CancelHandle start(backend_proxy::Operation op, const Json& request, backend_proxy::OpCallbacks callbacks,
                     std::string_view /*stdin_bytes*/) override {
    auto record = std::make_shared<Op>();
    record->callbacks = std::move(callbacks);
    ++pending_;
    if (op == backend_proxy::Operation::wait_for_death) {
      held_.push_back(record);
    } else {
      deliver_later(record, reply(op, request));
    }
    return std::make_shared<Cancel>(this, record);
  }

  size_t pending_ops() const override { return pending_; }

  // The checkpoint tools are fuzzed too.
  backend_proxy::ExtensionOffer checkpoints_offer() const override {
    backend_proxy::ExtensionOffer offer;
    offer.returned = true;
    offer.usable = true;
    offer.struct_size = sizeof(vc_backend_checkpoints);
    return offer;
  }

  // And the process tools.
  backend_proxy::ExtensionOffer processes_offer() const override {
    backend_proxy::ExtensionOffer offer;
    offer.returned = true;
    offer.usable = true;
    offer.struct_size = sizeof(vc_backend_processes);
    return offer;
  }

  void shutdown(uint64_t, std::function<void()> done) override { done(); }

 private:
  struct Reply {
    int32_t status = VC_OK;
    Json result = Json::object();
    std::string message;
    std::vector<std::pair<vc_stream, std::string>> emits;
  };

  struct Op {
    backend_proxy::OpCallbacks callbacks;
    bool cancel_requested = false;
    bool completed = false;
  };

  class Cancel final : public Cancellable {
   public:
    Cancel(FakeBackend* backend, std::weak_ptr<Op> record)
        : backend_(backend), record_(std::move(record)) {}
    void cancel() override {
      auto record = record_.lock();
      if (!record || record->completed || record->cancel_requested) return;
      record->cancel_requested = true;
      Reply cancelled;
      cancelled.status = VC_E_CANCELLED;
      cancelled.message = "The operation was cancelled.";
      backend_->deliver_later(record, std::move(cancelled));
    }

   private:
    FakeBackend* backend_;
    std::weak_ptr<Op> record_;
  };

  static Json computer(const Json& request, bool network, bool desktop) {
    return Json{{"computer_id", request.value("computer_id", kComputerId)},
                {"sandbox_id", "0123456789abcdef0123"},
                {"state", "running"},
                {"temporary", false},
                {"image", "fuzz:latest"},
                {"created_at", "2026-12-01T00:00:00Z"},
                {"network_access", network},
                {"desktop_environment", desktop},
                {"desktop_url", desktop ? Json("http://127.0.0.1:6080/?secret=fuzz") : Json()}};
  }

  static Json checkpoint(const Json& request) {
    return Json{{"name", request.value("name", "before")},
                {"computer_id", request.value("computer_id", kComputerId)},
                {"created", "2026-12-01T00:00:00Z"},
                {"size_bytes", 4096},
                {"processes", false},
                {"desktop_environment", false}};
  }

  // A process as the supervisor describes one, and the output of a call: bounded, whatever
  // the request said.
  static Json process(const Json& request) {
    return Json{{"process", Json{{"process_id", request.value("process_id", "p1")},
                                 {"command", "fuzz"},
                                 {"argv", Json::array({"fuzz"})},
                                 {"working_directory", "/workspace"},
                                 {"pty", request.value("pty", false)},
                                 {"pid", 42},
                                 {"state", "running"},
                                 {"exit_code", nullptr},
                                 {"signal", nullptr},
                                 {"started", "2026-12-01T00:00:00.000Z"},
                                 {"ended", nullptr},
                                 {"log_paths", Json{{"stdout", "/var/tmp/vc-processes-0/p1/stdout.log"}}}}},
                {"output", Json{{"stdout", "out"}, {"stderr", ""}, {"stdout_dropped", 0},
                                {"stderr_dropped", 0}, {"stdout_offset", 3},
                                {"stderr_offset", 0}, {"more", false}}}};
  }

  static Reply ok(Json result) {
    Reply answer;
    answer.result = std::move(result);
    return answer;
  }

  // What a file script or a command prints, by the script it runs.
  static Reply exec_reply(const Json& request) {
    Reply answer = ok(Json{{"exit_code", 0}, {"outcome", "exited"}, {"duration_ms", 3}});
    const Json argv = request.value("argv", Json::array());
    const std::string script =
        argv.is_array() && argv.size() > 2 && argv[2].is_string() ? argv[2].get<std::string>() : "";
    if (script == tools::kReadFileScript) {
      answer.emits.emplace_back(VC_STREAM_STDOUT, std::to_string(kFileText.size()) + "\n" +
                                                      base64_encode(kFileText));
    } else if (script == tools::kListDirectoryScript) {
      answer.emits.emplace_back(VC_STREAM_STDOUT, base64_encode(kListing));
    } else if (script != tools::kWriteFileScript) {
      answer.emits.emplace_back(VC_STREAM_STDOUT, "fuzz\n");
      answer.emits.emplace_back(VC_STREAM_STDERR, "warning: fuzz\n");
    }
    return answer;
  }

  // What the desktop agent would answer, so the desktop tools' result handling is reached.
  static Reply desktop_reply(const Json& request) {
    const std::string action = request.value("action", "");
    if (action == "screenshot") {
      return ok(Json{{"mime_type", "image/png"}, {"width", 640}, {"height", 400},
                     {"screen_width", 1280}, {"screen_height", 800}, {"scale", 0.5},
                     {"image_base64", "iVBORw0KGgo="}});
    }
    if (action == "list_windows") {
      return ok(Json{{"windows", Json::array({Json{{"window_id", "0x00a00003"},
                                                   {"title", "Terminal"},
                                                   {"wm_class", "xfce4-terminal.Xfce4-terminal"}}})}});
    }
    if (action == "accessibility_snapshot") {
      return ok(Json{{"format", "at-spi-snapshot-v1"}, {"width", 1280}, {"height", 800},
                     {"snapshot", "- frame \"Terminal\" [ref=atspi:0/0 bounds=1,2,3,4]\n"},
                     {"elements", Json::array()}});
    }
    if (action == "element_bounds") {
      return ok(Json{{"center", Json::array({10, 20})}});
    }
    return ok(Json::object());
  }

  static Reply reply(backend_proxy::Operation op, const Json& request) {
    using backend_proxy::Operation;
    const bool network = request.value("network_access", true);
    const bool desktop = request.value("desktop_environment", false);
    switch (op) {
      case Operation::validate: return ok(Json{{"engine", "fuzz"}});
      case Operation::attach: {
        Reply missing;
        missing.status = VC_E_NOT_FOUND;
        missing.message = "No computer named 'fuzz-computer' exists.";
        return missing;
      }
      case Operation::ensure_image: {
        Reply image = ok(Json{{"image", "fuzz:latest"}, {"action", "pulled"}});
        image.emits.emplace_back(VC_STREAM_PROGRESS,
                                 R"({"progress":1,"total":2,"message":"Pulling fuzz:latest"})");
        image.emits.emplace_back(VC_STREAM_PROGRESS, R"({"progress":2,"total":2})");
        return image;
      }
      case Operation::create:
      case Operation::restart:
      case Operation::factory_reset: return ok(computer(request, network, desktop));
      case Operation::list:
        return ok(Json{{"computers", Json::array({computer(Json::object(), true, false)})}});
      case Operation::remove:
        return ok(Json{{"computer_id", request.value("computer_id", kComputerId)}, {"removed", true}});
      case Operation::set_network_access:
        return ok(computer(request, request.value("enabled", true), false));
      case Operation::set_desktop_environment:
        return ok(computer(request, true, request.value("enabled", false)));
      case Operation::get_desktop_environment:
        return ok(Json{{"enabled", false}, {"desktop_url", nullptr}});
      case Operation::exec: return exec_reply(request);
      case Operation::tool_instructions: return ok(Json{{"instructions", "Run commands."}});
      case Operation::desktop_action: return desktop_reply(request);
      case Operation::create_checkpoint:
      case Operation::restore_checkpoint:
        return ok(Json{{"checkpoint", checkpoint(request)},
                       {"computer", computer(request, network, desktop)}});
      case Operation::fork_checkpoint:
        return ok(Json{{"checkpoint", request.contains("name") ? checkpoint(request) : Json()},
                       {"computer", computer(Json{{"computer_id", request.value(
                                                                      "new_computer_id", kComputerId)}},
                                             true, false)}});
      case Operation::list_checkpoints:
        return ok(Json{{"computer_id", request.value("computer_id", kComputerId)},
                       {"checkpoints", Json::array({checkpoint(Json{{"name", "before"}})})}});
      case Operation::delete_checkpoint:
        return ok(Json{{"computer_id", request.value("computer_id", kComputerId)},
                       {"name", request.value("name", "before")},
                       {"deleted", true}});
      case Operation::start_process:
      case Operation::read_process:
      case Operation::write_process:
      case Operation::kill_process: return ok(process(request));
      case Operation::list_processes:
        return ok(Json{{"computer_id", request.value("computer_id", kComputerId)},
                       {"processes", Json::array({process(Json::object())["process"]})}});
      case Operation::wait_for_death: break;
    }
    Reply unsupported;
    unsupported.status = VC_E_UNSUPPORTED;
    unsupported.message = "The fuzz backend does not support this.";
    return unsupported;
  }

  void deliver_later(const std::shared_ptr<Op>& record, Reply answer) {
    queue_.emplace_back([this, record, answer = std::move(answer)]() mutable {
      if (record->completed) return;
      if (record->cancel_requested && answer.status != VC_E_CANCELLED) {
        answer = Reply{VC_E_CANCELLED, Json::object(), "The operation was cancelled.", {}};
      }
      record->completed = true;
      --pending_;
      backend_proxy::OpCallbacks callbacks = std::move(record->callbacks);
      record->callbacks = {};
      for (auto held = held_.begin(); held != held_.end(); ++held) {
        if (*held == record) {
          held_.erase(held);
          break;
        }
      }
      for (const auto& [stream, bytes] : answer.emits) {
        if (callbacks.on_emit) callbacks.on_emit(stream, bytes);
      }
      if (answer.status < 0) {
        callbacks.on_complete(Failure{answer.status, answer.message});
      } else {
        callbacks.on_complete(answer.result);
      }
    });
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) uv_idle_start(&idle_, &drain);
  }

  // Delivers what was queued before this turn; what those deliveries queue waits a turn.
  static void drain(uv_idle_t* idle) {
    auto* self = static_cast<FakeBackend*>(idle->data);
    std::deque<std::function<void()>> batch;
    batch.swap(self->queue_);
    for (auto& delivery : batch) delivery();
    if (self->queue_.empty()) uv_idle_stop(idle);
  }

  uv_idle_t idle_{};
  plugins::PluginInfo info_;
  size_t pending_ = 0;
  std::deque<std::function<void()>> queue_;
  std::vector<std::shared_ptr<Op>> held_;  // wait_for_death, until cancelled
};

// The backend, the registry of the one computer, lifecycle operations, and every tool the
// server offers (the lifecycle tools included), wired as the servers wire them. The
// conformance suite's catalog (tests/conformance/fixtures) provides resources and prompts, so
// that resources/*, prompts/* and completion/complete have something to answer from.
struct ToolFixture {
  explicit ToolFixture(uv_loop_t* event_loop)
      : loop(event_loop), backend(std::make_shared<FakeBackend>(event_loop)) {
    computers::ComputerSettings settings;
    settings.computer_id = kComputerId;
    settings.output_limit = 4096;
    registry = std::make_unique<computers::ComputerRegistry>(backend, settings);
    lifecycle = std::make_unique<computers::ComputerLifecycle>(backend, settings, registry.get());
    tools = tools::make_tool_catalog({true, registry.get(), lifecycle.get(), "Run a command."});
    catalog = conformance::make_conformance_fixture_catalog();
  }

  ToolFixture(const ToolFixture&) = delete;
  ToolFixture& operator=(const ToolFixture&) = delete;

  // Users before what they use, as the servers do (whatever uses the tools must be gone
  // already); then the loop runs until the cancellations are delivered and every handle is
  // closed.
  ~ToolFixture() {
    tools.clear();
    lifecycle.reset();
    registry.reset();
    uv_run(loop, UV_RUN_DEFAULT);
    backend->close();
    uv_run(loop, UV_RUN_DEFAULT);
  }

  std::vector<mcp::Tool*> borrowed() const {
    std::vector<mcp::Tool*> pointers;
    for (const auto& tool : tools) pointers.push_back(tool.get());
    return pointers;
  }

  // Runs the loop without blocking while completions are queued or `more` says the caller
  // still expects something (bytes in flight on a socket), until three quiet turns in a row.
  // Work that does not settle within the bound is a loop the product must not have.
  void settle(const std::function<bool()>& more = {}) {
    constexpr int kMaxTurns = 2000;
    int quiet = 0;
    for (int turn = 0; turn < kMaxTurns; ++turn) {
      uv_run(loop, UV_RUN_NOWAIT);
      const bool waiting = backend->busy() || (more && more());
      quiet = waiting ? 0 : quiet + 1;
      if (quiet >= 3) return;
    }
    __builtin_trap();
  }

  uv_loop_t* loop;
  std::shared_ptr<FakeBackend> backend;
  std::unique_ptr<computers::ComputerRegistry> registry;
  std::unique_ptr<computers::ComputerLifecycle> lifecycle;
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  std::unique_ptr<mcp::ContentCatalog> catalog;
};

}  // namespace vc::fuzz
