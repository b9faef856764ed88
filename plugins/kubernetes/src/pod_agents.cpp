// pod_agents.cpp — commands through each computer's exec agent, from the lanes to the API
// thread and back.
#include "pod_agents.h"

#include <atomic>
#include <future>
#include <thread>
#include <utility>
#include <variant>

#include <vc_agent_channel/agent_exec_session.h>
#include <vc_agent_channel/command_result.h>
#include <vc_agent_channel/desktop_channel.h>
#include <vc_agent_channel/exec_agent_channel.h>
#include <vc_agent_channel/exec_agent_program.h>

#include "pod_agent_computer.h"

namespace vc::kubernetes {
namespace {

using agent_channel::Expected;
using sdk::OpFailure;
using sdk::OpResult;

// Tries after the first, 0.5 s, 1 s and 1.5 s apart: the window has been seen to last longer
// than half a second.
constexpr int kOpenRetries = 3;
constexpr std::chrono::milliseconds kOpenRetryDelay{500};

// How a command ends on Kubernetes: a plain result; a lost stream is handed to the lane, which
// looks (blocking) whether the computer died.
class PodCommandEnding final : public agent_channel::CommandEnding {
 public:
  explicit PodCommandEnding(std::string computer_id) : computer_id_(std::move(computer_id)) {}
  void started() override {}
  void conclude_failed(std::int64_t exit_code, std::int64_t duration_ms, std::string lost_why,
                       agent_channel::Callback<nlohmann::json> done) override {
    if (exit_code >= 0) return done(agent_channel::exec_result(exit_code, "exited", duration_ms));
    while (!lost_why.empty() && lost_why.back() == '.') lost_why.pop_back();
    // The agent ends every command of a line that is gone (its stdin closes), so the command
    // is not left running unseen.
    done(OpFailure{VC_E_UNAVAILABLE,
                   "The command in computer " + computer_id_ + " ended without its result (" +
                       lost_why + "). Its processes were ended with the exec agent's line; "
                       "run it again if it must finish.",
                   nlohmann::json{{"code", kExecStreamLostCode}, {"retryable", true}}});
  }
  nlohmann::json error_details(std::string_view reason) override {
    return nlohmann::json{{"code", "kubernetes." + std::string(reason)}, {"retryable", false}};
  }

 private:
  const std::string computer_id_;
};

}  // namespace

struct PodAgents::Computer {
  std::shared_ptr<PodAgentComputer> pod;
  std::shared_ptr<agent_channel::ExecAgentChannel> exec_agent;
  std::shared_ptr<agent_channel::DesktopChannel> desktop;
};

// One command on its way: what the lane waits for.
struct PodAgents::Run {
  struct NeedPod {};
  struct FallBack {};
  struct OpenFailed {  // the agent could not be reached: maybe a pod just replaced
    OpFailure failure;
  };
  using Step = std::variant<NeedPod, FallBack, OpenFailed, OpResult>;

  std::string computer_id;
  std::string shell;
  sdk::ExecRequest request;
  std::string stdin_bytes;
  agent_channel::ExecOutput::Emit emit;
  PodView pod;

  std::promise<Step> step;
  std::atomic<bool> cancelled{false};
  std::weak_ptr<agent_channel::RunningCommand> session;  // [API thread]

  void answer(Step value) { step.set_value(std::move(value)); }
  Step wait() {
    Step value = step.get_future().get();
    step = std::promise<Step>();
    return value;
  }
};

PodAgents::PodAgents(AgentTransport& transport, sdk::HostLog log, ExecAgentMode mode,
                     std::string agent_binary)
    : transport_(transport), log_(log), mode_(mode), agent_binary_(std::move(agent_binary)) {}

PodAgents::~PodAgents() = default;

PodAgents::Computer& PodAgents::computer(const std::string& computer_id) {
  auto& slot = computers_[computer_id];
  if (!slot) {
    slot = std::make_unique<Computer>();
    slot->pod = std::make_shared<PodAgentComputer>(transport_, computer_id);
    agent_channel::ExecAgentChannel::Options options;
    options.program = [binary = agent_binary_] {
      return agent_channel::load_exec_agent_program(binary);
    };
    options.falls_back = mode_ == ExecAgentMode::kAuto;
    slot->exec_agent =
        agent_channel::ExecAgentChannel::make(slot->pod, transport_.clock(), log_, std::move(options));
    slot->desktop = agent_channel::DesktopChannel::make(slot->pod, transport_.clock(), log_);
  }
  return *slot;
}

std::optional<OpResult> PodAgents::run_command(const std::string& computer_id,
                                               const FindPod& find_pod, const std::string& shell,
                                               sdk::ExecRequest request, std::string stdin_bytes,
                                               agent_channel::ExecOutput::Emit emit,
                                               sdk::CancelScope& scope) {
  if (mode_ == ExecAgentMode::kOff) return std::nullopt;
  auto run = std::make_shared<Run>();
  run->computer_id = computer_id;
  run->shell = shell;
  run->request = std::move(request);
  run->stdin_bytes = std::move(stdin_bytes);
  run->emit = std::move(emit);

  // A cancel stops the command on the API thread (or keeps it from starting).
  auto cancel_run = [this, run] {
    run->cancelled = true;
    transport_.post([run] {
      if (auto session = run->session.lock()) session->cancel();
    });
  };
  scope.set_canceller(cancel_run);
  // An open channel takes the command at once; a closed one needs the pod first.
  transport_.post([this, run] {
    Computer& entry = computer(run->computer_id);
    if (entry.exec_agent->is_open()) return start_session(entry, run);
    run->answer(Run::NeedPod{});
  });
  auto step = run->wait();
  // A pod that has just replaced another (a restart) can be running in the API before the
  // node routes execs to it ("container not found"): the open is tried again, a few times.
  for (int attempt = 0; std::holds_alternative<Run::NeedPod>(step); ++attempt) {
    auto pod = find_pod();  // sets and clears the scope's canceller itself
    if (!pod) return OpResult::failed(pod.error());
    run->pod = pod.value();
    scope.set_canceller(cancel_run);
    if (scope.cancelled()) return OpResult::cancelled();
    transport_.post([this, run] { open_and_start(computer(run->computer_id), run); });
    step = run->wait();
    if (auto* failed = std::get_if<Run::OpenFailed>(&step)) {
      if (attempt >= kOpenRetries || scope.cancelled()) return OpResult::failed(failed->failure);
      log_.debug("The exec agent of " + computer_id + " could not be reached (" +
                 failed->failure.message + "); trying again");
      std::this_thread::sleep_for(kOpenRetryDelay * (attempt + 1));
      step = Run::NeedPod{};
    }
  }
  scope.clear();
  if (std::holds_alternative<OpResult>(step)) return std::get<OpResult>(std::move(step));
  return std::nullopt;  // FallBack
}

void PodAgents::open_and_start(Computer& entry, const std::shared_ptr<Run>& run) {
  entry.pod->target(run->pod.name, run->pod.uid);
  entry.exec_agent->open([this, run](Expected<agent_channel::Done> ready) {
    if (ready.ok()) {
      auto found = computers_.find(run->computer_id);
      if (found == computers_.end()) {
        return run->answer(OpResult::failed(OpFailure{
            VC_E_UNAVAILABLE, "The computer " + run->computer_id + " was stopped meanwhile.",
            nullptr}));
      }
      return start_session(*found->second, run);
    }
    if (ready.error().status == VC_E_UNSUPPORTED && mode_ == ExecAgentMode::kAuto) {
      return run->answer(Run::FallBack{});
    }
    if (ready.error().status == VC_E_UNSUPPORTED || ready.error().status == VC_E_CANCELLED) {
      return run->answer(OpResult::failed(ready.error()));
    }
    run->answer(Run::OpenFailed{ready.error()});
  });
}

void PodAgents::start_session(Computer& entry, const std::shared_ptr<Run>& run) {
  if (run->cancelled) return run->answer(OpResult::cancelled());
  auto session = std::make_shared<agent_channel::AgentExecSession>(
      transport_.clock(), log_, entry.exec_agent,
      std::make_unique<PodCommandEnding>(run->computer_id), std::move(run->request), run->shell,
      std::move(run->stdin_bytes), std::move(run->emit),
      [run](Expected<nlohmann::json> outcome) {
        if (!outcome.ok()) return run->answer(OpResult::failed(outcome.error()));
        run->answer(OpResult::ok(std::move(outcome).value()));
      });
  run->session = session;
  session->start();
}

OpResult PodAgents::desktop_action(const std::string& computer_id, const FindPod& find_pod,
                                   nlohmann::json action, std::chrono::milliseconds deadline,
                                   sdk::CancelScope& scope) {
  // One answer: the action's outcome, or (nullopt) "the computer's channels name no pod yet".
  struct Exchange {
    std::promise<std::optional<OpResult>> answer;
    std::uint64_t ticket = 0;  // [API thread]
    std::atomic<bool> cancelled{false};
  };
  auto exchange = std::make_shared<Exchange>();
  auto outcome = exchange->answer.get_future();
  auto send = [this, computer_id, exchange, action = std::move(action), deadline](
                  std::optional<PodView> pod) mutable {
    Computer& entry = computer(computer_id);
    if (pod) entry.pod->target(pod->name, pod->uid);
    if (!entry.pod->has_target()) return exchange->answer.set_value(std::nullopt);
    if (exchange->cancelled) return exchange->answer.set_value(OpResult::cancelled());
    exchange->ticket = entry.desktop->send(
        std::move(action), deadline, [exchange](Expected<nlohmann::json> result) {
          if (!result.ok()) return exchange->answer.set_value(OpResult::failed(result.error()));
          exchange->answer.set_value(OpResult::ok(std::move(result).value()));
        });
  };
  auto withdraw = [this, computer_id, exchange] {
    exchange->cancelled = true;
    transport_.post([this, computer_id, exchange] {
      const auto found = computers_.find(computer_id);
      if (found != computers_.end() && exchange->ticket != 0) {
        found->second->desktop->withdraw(exchange->ticket);
      }
    });
  };
  scope.set_canceller(withdraw);
  transport_.post([send]() mutable { send(std::nullopt); });
  std::optional<OpResult> result = outcome.get();
  if (!result) {
    // The computer's channels name no pod yet: look it up, then send.
    scope.clear();
    auto pod = find_pod();  // sets and clears the scope's canceller itself
    if (!pod) return OpResult::failed(pod.error());
    exchange->answer = std::promise<std::optional<OpResult>>();
    outcome = exchange->answer.get_future();
    scope.set_canceller(withdraw);
    if (scope.cancelled()) return OpResult::cancelled();
    transport_.post([send, found = pod.value()]() mutable { send(found); });
    result = outcome.get();
  }
  scope.clear();
  if (!result) return OpResult::error(VC_E_FAILED, "No pod to send the desktop action to.");
  return std::move(*result);
}

void PodAgents::forget(const std::string& computer_id, const std::string& why) {
  transport_.post([this, computer_id, why] {
    auto found = computers_.find(computer_id);
    if (found == computers_.end()) return;
    auto entry = std::move(found->second);
    computers_.erase(found);
    entry->exec_agent->reset(why, /*kill=*/false);
    entry->desktop->close(OpFailure{VC_E_UNAVAILABLE,
                                    "The desktop of computer " + computer_id + " went away: " +
                                        why + ".",
                                    nlohmann::json{{"code", "desktop.agent_gone"}}});
  });
}

void PodAgents::shutdown() {
  std::promise<void> done;
  transport_.post([this, &done] {
    auto computers = std::move(computers_);
    computers_.clear();
    for (auto& [id, entry] : computers) {
      entry->exec_agent->reset("the server is shutting down", /*kill=*/false);
      entry->desktop->close(OpFailure{VC_E_CANCELLED, "The server is shutting down.",
                                      nlohmann::json{{"code", "desktop.agent_gone"}}});
    }
    computers.clear();
    done.set_value();
  });
  done.get_future().wait();
}

}  // namespace vc::kubernetes
