// computers_command.cpp — one lifecycle operation (or command) per process run.
#include "operator/computers_command.h"

#include <csignal>
#include <iostream>
#include <iterator>
#include <string>
#include <utility>

#include <uv.h>
#include <vc-backend-1/vc_status.h>

#include "common/json.h"
#include "common/utf8_repair.h"
#include "computers/computer_lifecycle.h"
#include "computers/lifecycle_reports.h"
#include "operator/computer_table.h"
#include "operator/confirmation.h"
#include "server/server_parts.h"
#include "server/signal_watcher.h"

namespace vc::operator_cli {
namespace {

using cli::ComputersAction;
using computers::ComputerInfo;
using computers::ExecOutcome;

constexpr int kTimedOutExitCode = 124;  // as timeout(1)

const char* outcome_name(ExecOutcome outcome) {
  switch (outcome) {
    case ExecOutcome::exited: return "exited";
    case ExecOutcome::timed_out: return "timed_out";
    case ExecOutcome::output_limit_exceeded: return "output_limit_exceeded";
  }
  return "exited";
}

// What one run prints and how it exits; the action callbacks fill it in.
class Reporter {
 public:
  explicit Reporter(bool json) : json_(json) {}

  int fail(const std::string& message) {
    if (json_) std::cout << Json{{"error", message}}.dump() << std::endl;
    std::cerr << cli::kProgramName << ": error: " << message << std::endl;
    return 1;
  }

  int succeed(const Json& document, const std::string& sentence) {
    if (json_) {
      std::cout << document.dump() << std::endl;
    } else {
      std::cout << sentence << std::flush;
    }
    return 0;
  }

  bool json() const { return json_; }

 private:
  bool json_;
};

std::optional<std::string> confirmation_question(const cli::ComputersCommand& command) {
  const std::string id = "'" + command.computer_id + "'";
  if (command.action == ComputersAction::reset) {
    return "Factory-reset computer " + id + "? All of its files will be replaced.";
  }
  if (command.action == ComputersAction::remove) {
    return "Delete computer " + id + " and all of its files?";
  }
  if (command.action == ComputersAction::restore) {
    return "Restore computer " + id + " to checkpoint '" + command.checkpoint.value_or("") +
           "'? Files changed since it was taken are lost, and running programs end.";
  }
  return std::nullopt;
}

// One run: the backend, the lifecycle on top of it, the action, and a clean shutdown.
class OperatorRun {
 public:
  OperatorRun(uv_loop_t* loop, const cli::ServerConfig& config, const cli::ComputersCommand& command)
      : loop_(loop), config_(config), command_(command), reporter_(command.json) {}

  int run(std::shared_ptr<plugins::PluginModule> module) {
    signals_ = std::make_unique<server::SignalWatcher>(loop_, [this](int signal_number) {
      stopped_by_ = signal_number;
      if (running_) running_->cancel();
    });
    auto backend = server::start_backend(loop_, config_, std::move(module));
    if (!backend) {
      finish(reporter_.fail(backend.error().message));
    } else {
      backend_ = std::move(backend).value();
      lifecycle_ = server::make_lifecycle(backend_, config_, nullptr);
      running_ = start_action();
    }
    uv_run(loop_, UV_RUN_DEFAULT);  // until finish() has closed everything
    lifecycle_.reset();
    return exit_code_;
  }

 private:
  CancelHandle start_action() {
    const std::string& id = command_.computer_id;
    switch (command_.action) {
      case ComputersAction::list:
        return lifecycle_->list([this](Expected<std::vector<ComputerInfo>> listed) {
          if (!listed) return finish(failed(listed.error()));
          finish(reporter_.succeed(
              computers::computer_listing_report(listed.value(), lifecycle_->backend_name()),
              format_computer_table(listed.value())));
        });
      case ComputersAction::prepare:
        return lifecycle_->prepare_image(
            [](double progress, std::optional<double> total, const std::string& message) {
              std::cerr << message;
              if (total) std::cerr << " [" << progress << "/" << *total << "]";
              std::cerr << std::endl;
            },
            [this](Expected<std::string> action) {
              if (!action) return finish(failed(action.error()));
              finish(reporter_.succeed(Json{{"image", config_image()}, {"action", action.value()}},
                                       "The image of new computers is ready (" +
                                           action.value() + ").\n"));
            });
      case ComputersAction::create: {
        computers::CreateSpec spec;
        spec.computer_id = id;
        spec.network_access = config_.network_access;
        spec.desktop_environment = config_.desktop_environment;
        return lifecycle_->create(
            spec, show_progress, [this](Expected<ComputerInfo> done) {
              if (!done) return finish(failed(done.error()));
              Json report = computers::computer_changed_report(done.value());
              std::string text = "Created computer '" + done.value().computer_id +
                                 "' (sandbox " + done.value().sandbox_id + ").\n";
              if (!done.value().mounts.empty()) report["mounts"] = done.value().mounts_json();
              for (const auto& mount : done.value().mounts) {
                text += "  " + mount.host_path + " mounted at " + mount.computer_path +
                        (mount.read_only ? " (read-only)\n" : "\n");
              }
              finish(reporter_.succeed(std::move(report), text));
            });
      }
      case ComputersAction::restart:
        return lifecycle_->restart(id, [this](Expected<ComputerInfo> done) {
          if (!done) return finish(failed(done.error()));
          finish(reporter_.succeed(computers::computer_changed_report(done.value()),
                                   "Restarted computer '" + done.value().computer_id +
                                       "' (sandbox " + done.value().sandbox_id + ").\n"));
        });
      case ComputersAction::reset:
        return lifecycle_->factory_reset(id, [this](Expected<ComputerInfo> done) {
          if (!done) return finish(failed(done.error()));
          finish(reporter_.succeed(computers::computer_changed_report(done.value()),
                                   "Factory-reset computer '" + done.value().computer_id +
                                       "': it has fresh files (sandbox " +
                                       done.value().sandbox_id + ").\n"));
        });
      case ComputersAction::remove:
        return lifecycle_->remove(id, [this, id](Expected<bool> done) {
          if (!done) return finish(failed(done.error()));
          finish(reporter_.succeed(computers::computer_deleted_report(id),
                                   "Deleted computer '" + id + "'.\n"));
        });
      case ComputersAction::exec:
        return start_exec();
      case ComputersAction::checkpoint:
      case ComputersAction::checkpoints:
      case ComputersAction::restore:
      case ComputersAction::fork:
      case ComputersAction::checkpoint_delete:
        return start_checkpoint_action();
    }
    return nullptr;
  }

  // Progress of a long checkpoint action, as `prepare` shows it: one line each on stderr.
  static void show_progress(double progress, std::optional<double> total,
                            const std::string& message) {
    std::cerr << message;
    if (total) std::cerr << " [" << progress << "/" << *total << "]";
    std::cerr << std::endl;
  }

  CancelHandle start_checkpoint_action() {
    const std::string& id = command_.computer_id;
    const std::string name = command_.checkpoint.value_or("");
    switch (command_.action) {
      case ComputersAction::checkpoint:
        return lifecycle_->create_checkpoint(
            id, name, show_progress, [this](Expected<computers::CheckpointOutcome> done) {
              if (!done) return finish(failed(done.error()));
              const auto& checkpoint = done.value().checkpoint;
              finish(reporter_.succeed(computers::checkpoint_report(done.value()),
                                       "Saved checkpoint '" + checkpoint->name +
                                           "' of computer '" + checkpoint->computer_id +
                                           "' (files only; " + checkpoint->created + ").\n"));
            });
      case ComputersAction::checkpoints:
        return lifecycle_->list_checkpoints(id, [this](Expected<computers::CheckpointListing> done) {
          if (!done) return finish(failed(done.error()));
          finish(reporter_.succeed(computers::checkpoint_listing_report(done.value()),
                                   format_checkpoint_table(done.value())));
        });
      case ComputersAction::restore:
        return lifecycle_->restore_checkpoint(
            id, name, show_progress, [this](Expected<computers::CheckpointOutcome> done) {
              if (!done) return finish(failed(done.error()));
              finish(reporter_.succeed(computers::checkpoint_report(done.value()),
                                       "Restored computer '" + done.value().computer.computer_id +
                                           "' to checkpoint '" + done.value().checkpoint->name +
                                           "' (sandbox " + done.value().computer.sandbox_id +
                                           ").\n"));
            });
      case ComputersAction::fork: {
        computers::ForkSpec spec;
        spec.computer_id = id;
        spec.new_computer_id = command_.new_computer_id;
        spec.checkpoint = command_.checkpoint;
        return lifecycle_->fork_checkpoint(
            std::move(spec), show_progress,
            [this, id](Expected<computers::CheckpointOutcome> done) {
              if (!done) return finish(failed(done.error()));
              const auto& outcome = done.value();
              const std::string from = outcome.checkpoint
                                           ? "checkpoint '" + outcome.checkpoint->name + "'"
                                           : std::string("its current files");
              finish(reporter_.succeed(computers::computer_forked_report(id, outcome),
                                       "Forked computer '" + id + "' (" + from +
                                           ") into computer '" + outcome.computer.computer_id +
                                           "' (sandbox " + outcome.computer.sandbox_id +
                                           ").\n"));
            });
      }
      case ComputersAction::checkpoint_delete:
        return lifecycle_->delete_checkpoint(id, name, [this, id, name](Expected<bool> done) {
          if (!done) return finish(failed(done.error()));
          finish(reporter_.succeed(computers::checkpoint_deleted_report(id, name),
                                   "Deleted checkpoint '" + name + "' of computer '" + id +
                                       "'.\n"));
        });
      default:
        return nullptr;
    }
  }

  // The --image option as given, or the backend's default.
  Json config_image() const {
    auto it = config_.backend_options.find("image");
    return it != config_.backend_options.end() ? *it : Json();
  }

  CancelHandle start_exec() {
    computers::ExecRequest request;
    request.args = command_.argv;
    request.working_directory = command_.working_directory;
    request.timeout_s = config_.default_timeout_s;
    // Streamed output is not held, so it needs no limit; collected output keeps the server's.
    request.output_limit = reporter_.json() ? config_.output_limit : 0;
    if (command_.forward_stdin) {
      request.stdin_data.assign(std::istreambuf_iterator<char>(std::cin),
                                std::istreambuf_iterator<char>());
    }
    return lifecycle_->exec(
        command_.computer_id, std::move(request),
        [this](computers::OutputStream stream, std::string_view bytes) {
          const bool to_stdout = stream == computers::OutputStream::stdout_stream;
          if (reporter_.json()) {
            (to_stdout ? stdout_ : stderr_).append(bytes);
            return;
          }
          std::ostream& out = to_stdout ? std::cout : std::cerr;
          out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
          out.flush();
        },
        [this](Expected<computers::StreamedExit> exit) { finish_exec(std::move(exit)); });
  }

  void finish_exec(Expected<computers::StreamedExit> exit) {
    if (!exit) return finish(failed(exit.error()));
    const auto& result = exit.value();
    if (reporter_.json()) {
      std::cout << Json{{"computer_id", command_.computer_id},
                        {"exit_code", result.exit_code},
                        {"outcome", outcome_name(result.outcome)},
                        {"stdout", repair_utf8(stdout_)},
                        {"stderr", repair_utf8(stderr_)},
                        {"duration_ms", result.duration_ms}}
                       .dump()
                << std::endl;
    }
    if (result.outcome == ExecOutcome::timed_out) {
      std::cerr << cli::kProgramName << ": the command timed out after "
                << config_.default_timeout_s << " s and was killed (--timeout sets the limit)"
                << std::endl;
      return finish(kTimedOutExitCode);
    }
    if (result.outcome == ExecOutcome::output_limit_exceeded) {
      std::cerr << cli::kProgramName << ": the command's output passed --output-limit ("
                << config_.output_limit << " bytes) and it was killed" << std::endl;
    }
    finish(result.exit_code);
  }

  int failed(const Failure& failure) {
    if (failure.status == VC_E_CANCELLED && stopped_by_ != 0) {
      std::cerr << cli::kProgramName << ": stopped by signal " << stopped_by_ << std::endl;
      return 128 + stopped_by_;
    }
    return reporter_.fail(failure.message);
  }

  void finish(int exit_code) {
    exit_code_ = exit_code;
    running_.reset();
    signals_->close([] {});
    if (backend_) backend_->shutdown(server::kBackendShutdownDeadlineMs, [] {});
  }

  uv_loop_t* loop_;
  const cli::ServerConfig& config_;
  const cli::ComputersCommand& command_;
  Reporter reporter_;
  std::unique_ptr<server::SignalWatcher> signals_;
  std::shared_ptr<backend_proxy::Backend> backend_;
  std::unique_ptr<computers::ComputerLifecycle> lifecycle_;
  CancelHandle running_;
  std::string stdout_;
  std::string stderr_;
  int stopped_by_ = 0;
  int exit_code_ = 1;
};

}  // namespace

int run_computers_command(const cli::ServerConfig& config, const cli::ComputersCommand& command,
                          std::shared_ptr<plugins::PluginModule> module) {
  if (auto question = confirmation_question(command); question && !command.yes) {
    if (!confirm(*question, std::cin, std::cerr)) {
      std::cerr << "Aborted: computer '" << command.computer_id << "' was not changed."
                << std::endl;
      return 1;
    }
  }
  return server::run_on_own_loop([&](uv_loop_t* loop) {
    OperatorRun run(loop, config, command);
    return run.run(std::move(module));
  });
}

}  // namespace vc::operator_cli
