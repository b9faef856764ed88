// process_backend.cpp — what each operation of the process backend does.
#include "process_backend.h"

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "command_run.h"

namespace fs = std::filesystem;
using vc::sdk::OpResult;

namespace vc_process_backend {
namespace {

constexpr const char* kDefaultShell = "/bin/sh";

// What a queued exec keeps: the request and a copy of its stdin (borrowed memory must not be
// kept), shared rather than copied along with the task.
struct ExecJob {
  vc::sdk::ExecRequest request;
  std::string stdin_bytes;
};

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

vc_status ProcessBackend::open(const vc_host_services* host, std::string_view config_json,
                               vc_backend** out_backend, std::string& error) {
  auto config = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) {
    error = "process: the backend config is not a JSON object";
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
    error = "process: --scratch-root must be a directory path";
    return VC_E_INVALID_ARGUMENT;
  } else if (host->state_dir != nullptr && host->state_dir[0] != '\0') {
    root = fs::path(host->state_dir) / "computers";
  } else {
    error = "process: the host gave no state directory; pass --scratch-root DIR";
    return VC_E_INVALID_ARGUMENT;
  }
  std::error_code ec;
  root = fs::absolute(root, ec).lexically_normal();  // relative: against the host's cwd, now
  if (ec) {
    error = "process: cannot resolve the scratch root: " + ec.message();
    return VC_E_INVALID_ARGUMENT;
  }

  auto* backend = new ProcessBackend(host, root);
  backend->log_.info("process backend ready; computers live in " + root.string() +
                     ". This backend is NOT a sandbox: commands run on the host.");
  *out_backend = &backend->handle_;
  return VC_OK;
}

ProcessBackend::ProcessBackend(const vc_host_services* host, fs::path scratch_root)
    : handle_(vc::sdk::make_backend_handle(this)), log_(host), store_(std::move(scratch_root)) {}

void ProcessBackend::destroy() {
  // The host only destroys an instance without pending ops; close() still cancels anything
  // left over (killing running commands), so that no plugin thread outlives this call.
  registry_.close(vc::sdk::OpRegistry::PendingWork::cancel);
  execs_.stop_and_join();
  tasks_.stop_and_join();
  delete this;
}

// --- helpers -------------------------------------------------------------------------------------

vc_status ProcessBackend::run_on_worker(const vc_op* op, std::function<OpResult()> work) {
  return vc::sdk::run_in_lane(registry_, tasks_, op, "",
                              [work = std::move(work)](const Pending&, vc::sdk::CancelScope&) {
                                return work();
                              });
}

void ProcessBackend::end_death_watches(const std::string& computer_id, std::string_view reason) {
  for (auto& watcher : deaths_.take(computer_id)) {
    registry_.complete(watcher, OpResult::ok({{"reason", reason}}));
  }
}

// --- operations ----------------------------------------------------------------------------------

vc_status ProcessBackend::validate(vc::sdk::ValidateRequest, const vc_op* op) {
  return run_on_worker(op, [this] { return store_.check_root(); });
}

vc_status ProcessBackend::ensure_image(vc::sdk::EnsureImageRequest, const vc_op* op) {
  // Nothing to fetch, so this completes at once; it still shows how progress is reported.
  auto pending = registry_.accept(op);
  nlohmann::json progress = {
      {"progress", 1}, {"total", 1},
      {"message", "The process backend runs commands on the host; there is no image."}};
  std::string event = progress.dump();
  registry_.emit(pending, VC_STREAM_PROGRESS, event.data(), event.size());
  registry_.complete(pending, OpResult::ok({{"image", "host"}, {"action", "present"}}));
  return VC_OK;
}

vc_status ProcessBackend::create_computer(vc::sdk::CreateRequest request, const vc_op* op) {
  const std::string& id = request.computer_id;
  // The result reports the effective settings, which is how the host learns what was ignored.
  if (!request.network_access) log_.warn("create " + id + ": cannot cut host processes off the network");
  if (request.desktop_environment) log_.warn("create " + id + ": the process backend has no desktop");
  return run_on_worker(op, [this, id, temporary = request.temporary,
                            adopt = request.adopt_existing] {
    return store_.create(id, temporary, adopt);
  });
}

vc_status ProcessBackend::attach(vc::sdk::AttachRequest request, const vc_op* op) {
  return run_on_worker(op, [this, id = request.computer_id] { return store_.info(id); });
}

vc_status ProcessBackend::list(vc::sdk::ListRequest, const vc_op* op) {
  return run_on_worker(op, [this] { return store_.list(); });
}

vc_status ProcessBackend::restart(vc::sdk::ComputerRequest request, const vc_op* op) {
  // A directory has nothing to restart; the op still checks that the computer exists.
  return run_on_worker(op, [this, id = request.computer_id] { return store_.info(id); });
}

vc_status ProcessBackend::remove(vc::sdk::ComputerRequest request, const vc_op* op) {
  return run_on_worker(op, [this, id = request.computer_id] {
    OpResult result = store_.remove(id);
    if (result.status == VC_OK) end_death_watches(id, "removed");
    return result;
  });
}

vc_status ProcessBackend::factory_reset(vc::sdk::ComputerRequest request, const vc_op* op) {
  return run_on_worker(op, [this, id = request.computer_id] {
    OpResult result = store_.factory_reset(id);
    if (result.status == VC_OK) end_death_watches(id, "removed");
    return result;
  });
}

vc_status ProcessBackend::wait_for_death(vc::sdk::ComputerRequest request, const vc_op* op) {
  // Checked and registered on the file-system lane, in order with create/remove of the computer.
  auto watch = [this, id = request.computer_id](const Pending& pending) {
    if (pending->cancel_requested()) {
      registry_.complete(pending, OpResult::cancelled());
    } else if (!store_.exists(id)) {
      registry_.complete(pending, OpResult::error(VC_E_NOT_FOUND, "No computer named " + id + "."));
    } else {
      deaths_.watch(id, pending);
      pending->on_cancel([this, pending] {
        if (deaths_.unwatch(pending)) registry_.complete(pending, OpResult::cancelled());
      });
    }
  };
  return vc::sdk::post_op(registry_, tasks_, op, "", std::move(watch));
}

vc_status ProcessBackend::tool_instructions(vc::sdk::ToolInstructionsRequest request,
                                            const vc_op* op) {
  std::string shell_name = fs::path(request.shell).filename().string();
  std::string text =
      "Execute a shell command on this host (NOT isolated): commands run as ordinary processes "
      "of the user running the MCP server and can read and change everything that user can. "
      "Commands run in " + shell_name + ", starting in a scratch directory of their own. Each "
      "call is independent: no shell variables or working directory persist between calls, but "
      "files do. Use working_directory or chain commands with && to work elsewhere.\n\n"
      "Use stdin to write files without shell escaping (for example command=\"cat > file.txt\" "
      "with the content as stdin). Commands time out after " +
      std::to_string(request.default_timeout_s) +
      " seconds by default (override with the timeout parameter).";
  return registry_.complete_now(op, OpResult::ok({{"instructions", text}}));
}

// --- exec ----------------------------------------------------------------------------------------

vc_status ProcessBackend::exec(vc::sdk::ExecRequest request, std::string_view stdin_bytes,
                               const vc_op* op) {
  const std::string lane = request.computer_id;
  auto job = std::make_shared<ExecJob>(ExecJob{std::move(request), std::string(stdin_bytes)});
  // Queued, a cancel withdraws the exec and completes it at once; running, it kills the command.
  return vc::sdk::run_in_lane(registry_, execs_, op, lane,
                              [this, job](const Pending& pending, vc::sdk::CancelScope& scope) {
                                return run_exec(pending, job->request,
                                                std::move(job->stdin_bytes), scope);
                              });
}

OpResult ProcessBackend::run_exec(const Pending& pending, const vc::sdk::ExecRequest& request,
                                 std::string stdin_bytes, vc::sdk::CancelScope& scope) {
  if (!store_.exists(request.computer_id)) {
    return OpResult::error(VC_E_NOT_FOUND, "No computer named " + request.computer_id + ".");
  }

  CommandSpec spec;
  spec.argv = request.resolved_argv(kDefaultShell);
  spec.stdin_bytes = std::move(stdin_bytes);
  spec.timeout_ms = request.timeout_ms;
  spec.output_limit = request.output_limit;
  fs::path cwd = store_.workspace(request.computer_id);
  if (request.working_directory) cwd = cwd / *request.working_directory;  // absolute replaces
  std::error_code ec;
  if (!fs::is_directory(cwd, ec)) {
    std::string shown = request.working_directory.value_or(cwd.string());
    return OpResult::error(VC_E_INVALID_ARGUMENT,
                           "Working directory '" + shown + "' does not exist.",
                           {{"code", "process.working_directory_missing"}, {"retryable", false}});
  }
  spec.working_directory = cwd.string();

  auto command = std::make_shared<CommandRun>();
  scope.set_canceller([command] { command->interrupt(); });
  auto emit = [this, &pending](vc_stream stream, const char* data, size_t len) {
    return registry_.emit(pending, stream, data, len);
  };
  auto is_cancelled = [this, &pending] {
    return pending->cancel_requested() || registry_.host_cancelled(pending);
  };
  CommandReport report = command->run(spec, emit, is_cancelled);
  scope.clear();

  if (report.end == CommandEnd::cancelled) return OpResult::cancelled();
  if (report.end == CommandEnd::spawn_failed) {
    // Reported like a shell would: a message on stderr and exit code 127 (not found) or 126.
    std::string message = "vc-backend-process: cannot run '" + spec.argv[0] +
                          "': " + std::generic_category().message(report.spawn_errno) + "\n";
    emit(VC_STREAM_STDERR, message.data(), message.size());
  }
  return OpResult::ok({{"exit_code", report.exit_code},
                       {"outcome", outcome_name(report.end)},
                       {"duration_ms", report.duration_ms}});
}

}  // namespace vc_process_backend
