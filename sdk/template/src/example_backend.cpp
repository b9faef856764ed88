// example_backend.cpp — one backend instance on the SDK's C++ layer.
//
// NOT a sandbox: a computer is a directory on this host, <computers-dir>/<computer_id>/, and
// commands run there as ordinary processes of the server's user. Replace the directory and
// the process (local_command.cpp) with your engine's objects; the plumbing stays:
//  - the op table (vc::sdk::backend_ops) parses and checks each request and calls the member
//    named after the operation, on the host's loop thread: members must not block;
//  - each member hands its work to vc::sdk::run_in_lane: a plugin thread per computer (one
//    computer's operations run in call order, different computers in parallel), a cancel that
//    withdraws queued work or stops running work, exactly one completion whatever races.
// Operations without a member (restart, factory_reset, the network, the desktop,
// wait_for_death) are NULL slots, which the host answers with VC_E_UNSUPPORTED.
#include "example_backend.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <system_error>
#include <utility>

#include <vc-backend-1/cpp/sdk.h>

#include "local_command.h"

namespace example_backend {
namespace {

namespace fs = std::filesystem;
namespace sdk = vc::sdk;
using sdk::OpResult;
using sdk::Pending;

class ExampleBackend {
 public:
  ExampleBackend(const vc_host_services* host, fs::path root)
      : handle(sdk::make_backend_handle(this)), log_(host), root_(std::move(root)) {}

  vc_backend handle;

  const sdk::HostLog& log() const { return log_; }
  void cancel(const vc_op* op) { registry_.cancel(op); }
  void destroy() {
    registry_.close(sdk::OpRegistry::PendingWork::cancel);  // kills the commands still running
    lanes_.stop_and_join();
    delete this;
  }

  vc_status validate(sdk::ValidateRequest, const vc_op* op) {
    return sdk::run_in_lane(registry_, lanes_, op, "", [this](const Pending&, sdk::CancelScope&) {
      std::error_code ec;
      fs::create_directories(root_, ec);
      if (ec) {
        return OpResult::error(VC_E_UNAVAILABLE, "Cannot create " + root_.string() + ": " +
                                                     ec.message() + ". Pass --computers-dir DIR.");
      }
      return OpResult::ok({{"engine", "local-directories"}, {"address", root_.string()}});
    });
  }

  vc_status ensure_image(sdk::EnsureImageRequest, const vc_op* op) {
    return registry_.complete_now(op, OpResult::ok({{"image", "host"}, {"action", "present"}}));
  }

  vc_status create_computer(sdk::CreateRequest request, const vc_op* op) {
    return on_computer(op, request.computer_id,
                       [this, adopt = request.adopt_existing](const std::string& id) {
                         std::error_code ec;
                         // An existing computer is kept as it is: adopted when asked to be.
                         if (fs::is_directory(root_ / id, ec)) {
                           if (adopt) return describe(id);
                           return OpResult::error(VC_E_ALREADY_EXISTS,
                                                  "Computer '" + id + "' already exists.");
                         }
                         fs::create_directories(root_ / id, ec);
                         return ec ? io_failure("create", root_ / id, ec) : describe(id);
                       });
  }

  vc_status attach(sdk::AttachRequest request, const vc_op* op) {
    return on_computer(op, request.computer_id,
                       [this](const std::string& id) { return describe(id); });
  }

  vc_status list(sdk::ListRequest, const vc_op* op) {
    return sdk::run_in_lane(registry_, lanes_, op, "", [this](const Pending&, sdk::CancelScope&) {
      nlohmann::json computers = nlohmann::json::array();
      std::error_code ec;  // no directory yet: no computers yet
      for (const auto& entry : fs::directory_iterator(root_, ec)) {
        std::string name = entry.path().filename().string();
        if (sdk::is_valid_computer_id(name) && entry.is_directory(ec)) {
          computers.push_back(describe(name).document);
        }
      }
      return OpResult::ok({{"computers", computers}});
    });
  }

  vc_status remove(sdk::ComputerRequest request, const vc_op* op) {
    return on_computer(op, request.computer_id, [this](const std::string& id) {
      std::error_code ec;
      bool removed = fs::remove_all(root_ / id, ec) > 0;
      return ec ? io_failure("remove", root_ / id, ec)
                : OpResult::ok({{"computer_id", id}, {"removed", removed}});
    });
  }

  vc_status exec(sdk::ExecRequest request, std::string_view stdin_bytes, const vc_op* op) {
    std::string lane = request.computer_id;
    auto work = [this, request = std::move(request), input = std::string(stdin_bytes)](
                    const Pending& pending, sdk::CancelScope& scope) {
      OpResult computer = describe(request.computer_id);
      if (!computer.succeeded()) return computer;
      fs::path directory = root_ / request.computer_id / request.working_directory.value_or("");
      std::error_code ec;
      if (!fs::is_directory(directory, ec)) {
        return OpResult::error(VC_E_INVALID_ARGUMENT, "Working directory '" +
                                                          request.working_directory.value_or("") +
                                                          "' does not exist.");
      }
      CommandRun run{request.resolved_argv("/bin/sh"), directory.string(), input,
                     request.timeout_ms};
      auto emit = [&](vc_stream stream, std::string_view bytes) {
        return registry_.emit_waiting(pending, stream, bytes.data(), bytes.size());
      };
      CommandEnd end = run_local_command(run, emit, scope);
      if (end.cancelled) return OpResult::cancelled();
      return OpResult::ok({{"exit_code", end.exit_code}, {"outcome", end.outcome},
                           {"duration_ms", end.duration_ms}});
    };
    return sdk::run_in_lane(registry_, lanes_, op, lane, std::move(work));
  }

  vc_status tool_instructions(sdk::ToolInstructionsRequest request, const vc_op* op) {
    std::string text =
        "Execute a shell command on this host (NOT isolated: commands run as ordinary processes "
        "of the user running the MCP server) in " + request.shell + ", starting in a directory "
        "of their own. Files persist between calls; shell variables and the working directory "
        "do not. Pass file contents as stdin (command=\"cat > file.txt\"). Commands time out "
        "after " + std::to_string(request.default_timeout_s) + " seconds by default.";
    return registry_.complete_now(op, OpResult::ok({{"instructions", text}}));
  }

 private:
  // Runs `work` for one computer on that computer's lane.
  vc_status on_computer(const vc_op* op, const std::string& id,
                        std::function<OpResult(const std::string&)> work) {
    return sdk::run_in_lane(registry_, lanes_, op, id,
                            [id, work = std::move(work)](const Pending&, sdk::CancelScope&) {
                              return work(id);
                            });
  }

  // [worker] The computer info document (the effective settings: the host's network, no
  // desktop), or VC_E_NOT_FOUND.
  OpResult describe(const std::string& id) const {
    std::error_code ec;
    if (!fs::is_directory(root_ / id, ec)) {
      return OpResult::error(VC_E_NOT_FOUND, "No computer named " + id + ".");
    }
    sdk::ComputerInfo info;
    info.computer_id = id;
    info.sandbox_id = (root_ / id).string();
    return OpResult::ok(info.to_json());
  }

  static OpResult io_failure(const char* what, const fs::path& path, const std::error_code& ec) {
    return OpResult::error(VC_E_FAILED, std::string("Cannot ") + what + " " + path.string() +
                                            ": " + ec.message());
  }

  sdk::HostLog log_;
  fs::path root_;
  sdk::OpRegistry registry_;
  sdk::WorkLanes lanes_;
};

}  // namespace

vc_status open_backend(const vc_host_services* host, std::string_view config_json,
                       vc_backend** out_backend, std::string& error) {
  auto config = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  nlohmann::json dir;
  if (config.is_object()) dir = config.value("/options/computers-dir"_json_pointer, dir);
  fs::path root;
  if (dir.is_string() && !dir.get_ref<const std::string&>().empty()) {
    root = dir.get<std::string>();
  } else if (dir.is_null() && host->state_dir != nullptr && host->state_dir[0] != '\0') {
    root = fs::path(host->state_dir) / "computers";
  } else {
    error = "template: --computers-dir must be a directory path";
    return VC_E_INVALID_ARGUMENT;
  }
  auto* backend = new ExampleBackend(host, fs::absolute(root).lexically_normal());
  backend->log().info("computers are directories in " + root.string() +
                      "; NOT a sandbox: commands run on this host");
  *out_backend = &backend->handle;
  return VC_OK;
}

}  // namespace example_backend
