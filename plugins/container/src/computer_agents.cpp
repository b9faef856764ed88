// computer_agents.cpp — the Engine API's exec and archive upload behind AgentComputer.
#include "computer_agents.h"

#include <utility>

#include "computer_naming.h"
#include "engine_failure.h"
#include "exec_agent_install.h"
#include "exec_conclusion.h"
#include "helper_exec.h"
#include "process_group_kill.h"

namespace vc::container {
namespace {

using agent_channel::AgentLaunch;
using agent_channel::AgentStream;
using agent_channel::AgentStreamEnd;
using agent_channel::AgentStreamEvents;

// One engine exec with its stream.
class ContainerAgentStream final : public AgentStream {
 public:
  ContainerAgentStream(BackendContext& ctx, std::string container, std::string exec_id)
      : ctx_(ctx), container_(std::move(container)), exec_id_(std::move(exec_id)) {}
  ~ContainerAgentStream() override { close(/*kill=*/false); }

  void attach(std::unique_ptr<engine::ExecStream> stream) { stream_ = std::move(stream); }

  void write(std::string bytes) override {
    if (stream_) stream_->write_stdin(std::move(bytes));
  }

  void close(bool kill) override {
    if (kill && !ctx_.shutting_down) {
      kill_exec_process_group(ctx_, exec_id_, container_, [](KillPath) {});
    }
    if (!stream_) return;
    stream_->close_stdin();
    stream_->abort();
    stream_.reset();
  }

  void exit_code(std::function<void(std::optional<std::int64_t>)> done) override {
    inspect_exec(ctx_, nullptr, exec_id_, 5, [done = std::move(done)](Expected<ExecState> state) {
      done(state.ok() ? state.value().exit_code : std::nullopt);
    });
  }

 private:
  BackendContext& ctx_;
  const std::string container_;
  const std::string exec_id_;
  std::unique_ptr<engine::ExecStream> stream_;
};

class ContainerAgentComputer final : public agent_channel::AgentComputer {
 public:
  ContainerAgentComputer(BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record)
      : ctx_(ctx), record_(record), computer_id_(record->computer_id),
        container_(container_name(computer_id_)) {}

  const std::string& computer_id() const override { return computer_id_; }

  std::string incarnation() const override {
    auto record = record_.lock();
    // Before any create or attach recorded the id, the name stands for the container.
    return record && !record->container_id.empty() ? record->container_id : container_;
  }

  void start(const AgentLaunch& launch, const std::shared_ptr<CancelScope>& scope,
             AgentStreamEvents events,
             Callback<std::unique_ptr<AgentStream>> started) override {
    nlohmann::json body = {{"AttachStdin", true},
                           {"AttachStdout", true},
                           {"AttachStderr", true},
                           {"Tty", false},
                           {"Cmd", launch.argv}};
    if (!launch.user.empty()) body["User"] = launch.user;
    if (!launch.environment.empty()) body["Env"] = launch.environment;
    if (!launch.working_directory.empty()) body["WorkingDir"] = launch.working_directory;
    create_exec(ctx_, scope, container_, body,
                [this, record = record_, events = std::move(events),
                 started = std::move(started)](Expected<std::string> exec_id) mutable {
                  if (!exec_id.ok()) return started(exec_id.error());
                  if (auto alive = record.lock()) {
                    alive->saw_running(ctx_.client.connection_losses());
                  }
                  started(attach(exec_id.value(), std::move(events)));
                });
  }

  void install_exec_agent(std::string program, const std::shared_ptr<CancelScope>& scope,
                          Callback<Done> done) override {
    auto archive = exec_agent_archive_of(program);
    if (!archive.ok()) return done(archive.error());
    container::install_exec_agent(ctx_, scope, container_, std::move(archive.value()),
                                  std::move(done));
  }

 private:
  std::unique_ptr<AgentStream> attach(const std::string& exec_id, AgentStreamEvents events) {
    auto stream = std::make_unique<ContainerAgentStream>(ctx_, container_, exec_id);
    engine::ExecStartOptions options;
    options.tty = false;
    engine::ExecStreamCallbacks callbacks;
    callbacks.on_output = [output = events.output](engine::StreamKind kind,
                                                   std::string_view bytes) {
      output(kind == engine::StreamKind::kStderr ? VC_STREAM_STDERR : VC_STREAM_STDOUT, bytes);
    };
    callbacks.on_end = [ended = events.ended](engine::Result<void> end) {
      ended(AgentStreamEnd{end.ok() ? std::string() : end.error().message});
    };
    stream->attach(ctx_.client.start_exec(exec_id, options, std::move(callbacks)));
    return stream;
  }

  BackendContext& ctx_;
  const std::weak_ptr<ComputerRecord> record_;
  const std::string computer_id_;
  const std::string container_;
};

class ContainerCommandEnding final : public agent_channel::CommandEnding {
 public:
  ContainerCommandEnding(BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record)
      : ctx_(ctx),
        scene_{record, record->computer_id, container_name(record->computer_id), 0} {}

  void started() override { scene_.stop_generation_at_start = scene_.record->stop_generation(); }

  void conclude_failed(std::int64_t exit_code, std::int64_t duration_ms, std::string lost_why,
                       Callback<nlohmann::json> done) override {
    conclude_failed_command(ctx_, scene_, exit_code, duration_ms, std::move(lost_why), nullptr,
                            std::move(done));
  }

  nlohmann::json error_details(std::string_view reason) override {
    return container::error_details(ctx_.profile, reason, false);
  }

 private:
  BackendContext& ctx_;
  CommandScene scene_;
};

}  // namespace

std::shared_ptr<agent_channel::AgentComputer> agent_computer_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record) {
  return std::make_shared<ContainerAgentComputer>(ctx, record);
}

std::shared_ptr<agent_channel::ExecAgentChannel> exec_agent_channel_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record) {
  if (!record->exec_agent) {
    agent_channel::ExecAgentChannel::Options options;
    options.program = [&ctx] {
      return agent_channel::load_exec_agent_program(ctx.options.exec_agent_binary);
    };
    options.falls_back = ctx.options.exec_agent == ExecAgentMode::kAuto;
    record->exec_agent = agent_channel::ExecAgentChannel::make(agent_computer_of(ctx, record),
                                                               ctx.clock, ctx.log,
                                                               std::move(options));
  }
  return record->exec_agent;
}

std::shared_ptr<agent_channel::DesktopChannel> desktop_channel_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record) {
  if (!record->desktop_channel) {
    record->desktop_channel =
        agent_channel::DesktopChannel::make(agent_computer_of(ctx, record), ctx.clock, ctx.log);
  }
  return record->desktop_channel;
}

std::unique_ptr<agent_channel::CommandEnding> command_ending_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record) {
  return std::make_unique<ContainerCommandEnding>(ctx, record);
}

}  // namespace vc::container
