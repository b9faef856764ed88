// template_backend.cpp — what each operation of the template backend does.
#include "template_backend.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "backend_ops.h"
#include "command_run.h"
#include "computer_id.h"
#include "exec_request.h"

namespace fs = std::filesystem;

namespace vc_template {

// A queued exec: the parsed request, a copy of its stdin (borrowed memory must not be kept)
// and the op it completes.
class TemplateBackend::ExecJob : public ExecLanes::Job {
 public:
  ExecJob(TemplateBackend& backend, ExecRequest request, std::string stdin_bytes,
          std::shared_ptr<OpState> op)
      : backend_(backend), request_(std::move(request)), stdin_bytes_(std::move(stdin_bytes)),
        op_(std::move(op)) {}

  const std::string& lane() const override { return request_.computer_id; }
  void run() override { backend_.run_exec(*this); }

  TemplateBackend& backend_;
  ExecRequest request_;
  std::string stdin_bytes_;
  std::shared_ptr<OpState> op_;
};

namespace {

OpResult cancelled_result() {
  return OpResult::error(VC_E_CANCELLED, "The operation was cancelled.");
}

std::optional<bool> optional_bool(const nlohmann::json& request, const char* key, bool fallback) {
  auto it = request.find(key);
  if (it == request.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

const char* outcome_name(CommandEnd end) {
  switch (end) {
    case CommandEnd::timed_out:
      return "timed_out";
    case CommandEnd::output_limit_exceeded:
      return "output_limit_exceeded";
    default:
      return "exited";
  }
}

}  // namespace

// --- instance ------------------------------------------------------------------------------------

vc_status TemplateBackend::create(const vc_host_services* host, std::string_view config_json,
                                  vc_backend** out_backend, std::string& error) {
  auto config = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) {
    error = "template: the backend config is not a JSON object";
    return VC_E_INVALID_ARGUMENT;
  }
  nlohmann::json scratch_root = nullptr;
  if (auto options = config.find("options"); options != config.end() && options->is_object()) {
    scratch_root = options->value("scratch-root", nlohmann::json(nullptr));
  }

  fs::path root;
  if (scratch_root.is_string() && !scratch_root.get_ref<const std::string&>().empty()) {
    root = scratch_root.get<std::string>();
  } else if (!scratch_root.is_null()) {
    error = "template: --scratch-root must be a directory path";
    return VC_E_INVALID_ARGUMENT;
  } else if (host->state_dir != nullptr && host->state_dir[0] != '\0') {
    root = fs::path(host->state_dir) / "computers";
  } else {
    error = "template: the host gave no state directory; pass --scratch-root DIR";
    return VC_E_INVALID_ARGUMENT;
  }
  std::error_code ec;
  root = fs::absolute(root, ec).lexically_normal();  // relative: against the host's cwd, now
  if (ec) {
    error = "template: cannot resolve the scratch root: " + ec.message();
    return VC_E_INVALID_ARGUMENT;
  }

  auto* backend = new TemplateBackend(host, root);
  backend->log_.info("template backend ready; computers live in " + root.string() +
                     ". This backend is NOT a sandbox: commands run on the host.");
  *out_backend = &backend->handle_;
  return VC_OK;
}

TemplateBackend::TemplateBackend(const vc_host_services* host, fs::path scratch_root)
    : log_(host), store_(std::move(scratch_root)) {
  handle_.struct_size = sizeof(vc_backend);
  handle_.plugin_ctx = this;
  handle_.ops = &kTemplateBackendOps;
}

void TemplateBackend::cancel(const vc_op* op) { registry_.cancel(op); }

void TemplateBackend::destroy() {
  // The host only destroys an instance without pending ops; close() still cancels anything
  // left over, so that no plugin thread outlives this call.
  registry_.close();
  lanes_.stop_and_join();
  tasks_.stop_and_join();
  delete this;
}

// --- helpers -------------------------------------------------------------------------------------

vc_status TemplateBackend::run_on_worker(const vc_op* op, std::function<OpResult()> work) {
  auto state = registry_.accept(op);
  try {
    tasks_.post([this, state, work = std::move(work)] {
      registry_.complete(state, state->cancel_requested() ? cancelled_result() : work());
    });
  } catch (...) {
    registry_.forget(state);  // not queued: reject the op instead
    throw;
  }
  return VC_OK;
}

vc_status TemplateBackend::complete_now(const vc_op* op, const OpResult& result) {
  registry_.complete(registry_.accept(op), result);
  return VC_OK;
}

std::string TemplateBackend::computer_id_of(const nlohmann::json& request,
                                            const char* operation) const {
  auto id = request.find("computer_id");
  if (id == request.end() || !id->is_string() ||
      !is_valid_computer_id(id->get_ref<const std::string&>())) {
    reject(operation, "computer_id must be 1-63 lowercase letters, digits or hyphens, "
                      "starting and ending with a letter or digit");
    return {};
  }
  return id->get<std::string>();
}

vc_status TemplateBackend::reject(const char* operation, std::string_view why) const {
  log_.warn(std::string(operation) + ": invalid request: " + std::string(why));
  rejection_ = "Invalid " + std::string(operation) + " request: " + std::string(why) + ".";
  return VC_E_INVALID_ARGUMENT;
}

vc_status TemplateBackend::settle_rejection(const vc_op* op, vc_status status) {
  std::optional<std::string> why = std::move(rejection_);
  rejection_.reset();
  if (status != VC_E_INVALID_ARGUMENT || !why) return status;
  return complete_now(op, OpResult::error(VC_E_INVALID_ARGUMENT, *why));
}

void TemplateBackend::end_death_watches(const std::string& computer_id, std::string_view reason) {
  for (auto& watcher : deaths_.take(computer_id)) {
    registry_.complete(watcher, OpResult::ok({{"reason", reason}}));
  }
}

// --- operations ----------------------------------------------------------------------------------

vc_status TemplateBackend::validate(const nlohmann::json&, const vc_op* op) {
  return run_on_worker(op, [this] { return store_.check_root(); });
}

vc_status TemplateBackend::ensure_image(const nlohmann::json&, const vc_op* op) {
  // Nothing to fetch, so this completes at once; it still shows how progress is reported.
  auto state = registry_.accept(op);
  nlohmann::json progress = {
      {"progress", 1}, {"total", 1},
      {"message", "The template backend runs commands on the host; there is no image."}};
  std::string event = progress.dump();
  registry_.emit(state, VC_STREAM_PROGRESS, event.data(), event.size());
  registry_.complete(state, OpResult::ok({{"image", "host"}, {"action", "present"}}));
  return VC_OK;
}

vc_status TemplateBackend::create_computer(const nlohmann::json& request, const vc_op* op) {
  std::string id = computer_id_of(request, "create");
  if (id.empty()) return VC_E_INVALID_ARGUMENT;
  auto temporary = optional_bool(request, "temporary", false);
  auto network = optional_bool(request, "network_access", true);
  auto desktop = optional_bool(request, "desktop_environment", false);
  if (!temporary || !network || !desktop) {
    return reject("create", "temporary, network_access and desktop_environment must be booleans");
  }
  // The result reports the effective settings, which is how the host learns what was ignored.
  if (!*network) log_.warn("create " + id + ": cannot cut host processes off the network");
  if (*desktop) log_.warn("create " + id + ": the template backend has no desktop");
  return run_on_worker(op, [this, id, temporary = *temporary] {
    return store_.create(id, temporary);
  });
}

vc_status TemplateBackend::attach(const nlohmann::json& request, const vc_op* op) {
  std::string id = computer_id_of(request, "attach");
  if (id.empty()) return VC_E_INVALID_ARGUMENT;
  return run_on_worker(op, [this, id] { return store_.info(id); });
}

vc_status TemplateBackend::list(const nlohmann::json&, const vc_op* op) {
  return run_on_worker(op, [this] { return store_.list(); });
}

vc_status TemplateBackend::restart(const nlohmann::json& request, const vc_op* op) {
  std::string id = computer_id_of(request, "restart");
  if (id.empty()) return VC_E_INVALID_ARGUMENT;
  // A directory has nothing to restart; the op still checks that the computer exists.
  return run_on_worker(op, [this, id] { return store_.info(id); });
}

vc_status TemplateBackend::remove(const nlohmann::json& request, const vc_op* op) {
  std::string id = computer_id_of(request, "remove");
  if (id.empty()) return VC_E_INVALID_ARGUMENT;
  return run_on_worker(op, [this, id] {
    OpResult result = store_.remove(id);
    if (result.status == VC_OK) end_death_watches(id, "removed");
    return result;
  });
}

vc_status TemplateBackend::factory_reset(const nlohmann::json& request, const vc_op* op) {
  std::string id = computer_id_of(request, "factory_reset");
  if (id.empty()) return VC_E_INVALID_ARGUMENT;
  return run_on_worker(op, [this, id] {
    OpResult result = store_.factory_reset(id);
    if (result.status == VC_OK) end_death_watches(id, "removed");
    return result;
  });
}

vc_status TemplateBackend::wait_for_death(const nlohmann::json& request, const vc_op* op) {
  std::string id = computer_id_of(request, "wait_for_death");
  if (id.empty()) return VC_E_INVALID_ARGUMENT;
  auto state = registry_.accept(op);
  try {
    // Checked and registered on the task worker, in order with create/remove of the computer.
    tasks_.post([this, id, state] {
      if (state->cancel_requested()) {
        registry_.complete(state, cancelled_result());
      } else if (!store_.exists(id)) {
        registry_.complete(state, OpResult::error(VC_E_NOT_FOUND, "No computer named " + id + "."));
      } else {
        deaths_.watch(id, state);
        registry_.on_cancel(state, [this, state] {
          if (deaths_.unwatch(state)) registry_.complete(state, cancelled_result());
        });
      }
    });
  } catch (...) {
    registry_.forget(state);
    throw;
  }
  return VC_OK;
}

vc_status TemplateBackend::tool_instructions(const nlohmann::json& request, const vc_op* op) {
  auto shell = request.find("shell");
  auto timeout = request.find("default_timeout_s");
  if (shell == request.end() || !shell->is_string() || timeout == request.end() ||
      !timeout->is_number_integer() || timeout->get<int64_t>() < 1) {
    return reject("tool_instructions", "shell (string) and default_timeout_s (integer >= 1) are required");
  }
  std::string shell_name = fs::path(shell->get<std::string>()).filename().string();
  std::string text =
      "Execute a shell command on this host (NOT isolated): commands run as ordinary processes "
      "of the user running the MCP server and can read and change everything that user can. "
      "Commands run in " + shell_name + ", starting in a scratch directory of their own. Each "
      "call is independent: no shell variables or working directory persist between calls, but "
      "files do. Use working_directory or chain commands with && to work elsewhere.\n\n"
      "Use stdin to write files without shell escaping (for example command=\"cat > file.txt\" "
      "with the content as stdin). Commands time out after " +
      std::to_string(timeout->get<int64_t>()) +
      " seconds by default (override with the timeout parameter).";
  return complete_now(op, OpResult::ok({{"instructions", text}}));
}

// --- exec ----------------------------------------------------------------------------------------

vc_status TemplateBackend::exec(const nlohmann::json& request, std::string_view stdin_bytes,
                                const vc_op* op) {
  std::string error;
  auto parsed = parse_exec_request(request, error);
  if (!parsed) return reject("exec", error);

  auto state = registry_.accept(op);
  try {
    auto job = std::make_shared<ExecJob>(*this, std::move(*parsed), std::string(stdin_bytes), state);
    // While queued, a cancel withdraws the job and completes the op at once. The hook holds
    // the job weakly: the job holds the op state, which holds the hook.
    std::weak_ptr<ExecJob> weak_job = job;
    registry_.on_cancel(state, [this, weak_job, state] {
      if (auto queued = weak_job.lock(); queued && lanes_.withdraw(queued)) {
        registry_.complete(state, cancelled_result());
      }
    });
    lanes_.enqueue(std::move(job));
  } catch (...) {
    registry_.forget(state);
    throw;
  }
  return VC_OK;
}

// [worker] Runs on the computer's lane thread.
void TemplateBackend::run_exec(ExecJob& job) {
  const auto& state = job.op_;
  const ExecRequest& request = job.request_;
  if (!store_.exists(request.computer_id)) {
    registry_.complete(state, OpResult::error(VC_E_NOT_FOUND,
                                              "No computer named " + request.computer_id + "."));
    return;
  }

  CommandSpec spec;
  spec.argv = request.argv;
  spec.stdin_bytes = std::move(job.stdin_bytes_);
  spec.timeout_ms = request.timeout_ms;
  spec.output_limit = request.output_limit;
  fs::path cwd = store_.workspace(request.computer_id);
  if (request.working_directory) cwd = cwd / *request.working_directory;  // absolute replaces
  std::error_code ec;
  if (!fs::is_directory(cwd, ec)) {
    std::string shown = request.working_directory.value_or(cwd.string());
    registry_.complete(state, OpResult::error(VC_E_INVALID_ARGUMENT,
                                              "Working directory '" + shown + "' does not exist.",
                                              {{"code", "template.working_directory_missing"},
                                               {"retryable", false}}));
    return;
  }
  spec.working_directory = cwd.string();

  auto command = std::make_shared<CommandRun>();
  // From now on a cancel kills the running command instead of withdrawing the job.
  registry_.on_cancel(state, [command] { command->interrupt(); });
  auto emit = [this, &state](vc_stream stream, const char* data, size_t len) {
    return registry_.emit(state, stream, data, len);
  };
  auto is_cancelled = [this, &state] {
    return state->cancel_requested() || registry_.host_cancelled(state);
  };
  CommandReport report = command->run(spec, emit, is_cancelled);

  if (report.end == CommandEnd::cancelled) {
    registry_.complete(state, cancelled_result());
    return;
  }
  if (report.end == CommandEnd::spawn_failed) {
    // Reported like a shell would: a message on stderr and exit code 127 (not found) or 126.
    std::string message = "vc-backend-template: cannot run '" + spec.argv[0] +
                          "': " + std::generic_category().message(report.spawn_errno) + "\n";
    emit(VC_STREAM_STDERR, message.data(), message.size());
  }
  registry_.complete(state, OpResult::ok({{"exit_code", report.exit_code},
                                          {"outcome", outcome_name(report.end)},
                                          {"duration_ms", report.duration_ms}}));
}

}  // namespace vc_template
