// agent_channel_test.cpp — the exec agent's and desktop agent's channels against a fake
// computer (what each engine plugin implements) and a clock the test advances: the greeting,
// the copy of the program, the frames of a command, the JSON lines of a desktop action, and
// every way a line ends.
#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <vc_agent_channel/desktop_channel.h>
#include <vc_agent_channel/exec_agent_channel.h>
#include <vc_agent_channel/exec_agent_program.h>
#include <vc_exec_agent/frames.h>

namespace vc::agent_channel {
namespace {

using namespace std::chrono_literals;
using exec_agent::FrameType;

// Timers that fire when the test says the time has come.
class ManualClock final : public ChannelClock {
 public:
  struct Slot {
    std::chrono::milliseconds due{0};
    std::function<void()> fire;
    bool active = false;
  };
  class Timer final : public ChannelTimer {
   public:
    Timer(ManualClock& clock, std::shared_ptr<Slot> slot) : clock_(clock), slot_(std::move(slot)) {}
    ~Timer() override { slot_->active = false; }
    void start(std::chrono::milliseconds delay, std::function<void()> on_fire) override {
      slot_->due = clock_.now_ + delay;
      slot_->fire = std::move(on_fire);
      slot_->active = true;
    }
    void stop() override { slot_->active = false; }
    bool active() const override { return slot_->active; }

   private:
    ManualClock& clock_;
    std::shared_ptr<Slot> slot_;
  };

  std::unique_ptr<ChannelTimer> make_timer() override {
    slots_.push_back(std::make_shared<Slot>());
    return std::make_unique<Timer>(*this, slots_.back());
  }
  void advance(std::chrono::milliseconds by) {
    now_ += by;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      auto slot = slots_[i];
      if (slot->active && slot->due <= now_) {
        slot->active = false;
        auto fire = slot->fire;
        fire();
      }
    }
  }

 private:
  std::chrono::milliseconds now_{0};
  std::vector<std::shared_ptr<Slot>> slots_;
};

// One process the fake computer started: what was written to it, and its events.
struct FakeProcess {
  AgentLaunch launch;
  AgentStreamEvents events;
  std::string written;
  bool closed = false;
  bool killed = false;
  std::optional<std::int64_t> exit_code;

  void say(std::string_view bytes) { events.output(VC_STREAM_STDOUT, bytes); }
  void end(std::string broke = {}) { events.ended(AgentStreamEnd{std::move(broke)}); }
};

class FakeStream final : public AgentStream {
 public:
  explicit FakeStream(std::shared_ptr<FakeProcess> process) : process_(std::move(process)) {}
  void write(std::string bytes) override { process_->written += bytes; }
  void close(bool kill) override {
    process_->closed = true;
    process_->killed = process_->killed || kill;
  }
  void exit_code(std::function<void(std::optional<std::int64_t>)> done) override {
    done(process_->exit_code);
  }

 private:
  std::shared_ptr<FakeProcess> process_;
};

class FakeComputer final : public AgentComputer {
 public:
  const std::string& computer_id() const override { return id_; }
  std::string incarnation() const override { return incarnation_; }
  void start(const AgentLaunch& launch, const std::shared_ptr<CancelScope>&,
             AgentStreamEvents events, Callback<std::unique_ptr<AgentStream>> started) override {
    if (refuse_start) return started(*refuse_start);
    auto process = std::make_shared<FakeProcess>();
    process->launch = launch;
    process->events = std::move(events);
    processes.push_back(process);
    started(std::unique_ptr<AgentStream>(std::make_unique<FakeStream>(process)));
  }
  void install_exec_agent(std::string program, const std::shared_ptr<CancelScope>&,
                          Callback<Done> done) override {
    installed.push_back(std::move(program));
    pending_install = std::move(done);
  }
  void finish_install(Expected<Done> outcome = Done{}) {
    auto done = std::move(pending_install);
    pending_install = nullptr;
    done(std::move(outcome));
  }

  std::string id_ = "it-1";
  std::string incarnation_ = "pod-uid-1";
  std::optional<OpFailure> refuse_start;
  std::vector<std::shared_ptr<FakeProcess>> processes;
  std::vector<std::string> installed;
  Callback<Done> pending_install;
};

std::string hello(std::string_view version, int protocol = static_cast<int>(exec_agent::kProtocolVersion)) {
  return exec_agent::encode_frame(
      FrameType::kHello, 0,
      nlohmann::json{{"agent", "vc-exec-agent"}, {"version", version}, {"protocol", protocol}}.dump());
}

// The frames a process was sent, in order.
std::vector<exec_agent::Frame> frames_in(const std::string& bytes) {
  exec_agent::FrameReader reader;
  reader.feed(bytes);
  std::vector<exec_agent::Frame> frames;
  while (auto frame = reader.next()) frames.push_back(std::move(*frame));
  return frames;
}

class ExecAgentChannelTest : public ::testing::Test {
 protected:
  std::shared_ptr<ExecAgentChannel> make_channel(bool falls_back = true) {
    ExecAgentChannel::Options options;
    options.program = [] { return Expected<std::string>(std::string("\x7f" "ELF program")); };
    options.falls_back = falls_back;
    return ExecAgentChannel::make(computer_, clock_, sdk::HostLog(nullptr), std::move(options));
  }
  // Opens the channel the way a first command does: copy, start, hello.
  void open(ExecAgentChannel& channel) {
    std::optional<Expected<Done>> ready;
    channel.open([&](Expected<Done> outcome) { ready = std::move(outcome); });
    computer_->finish_install();
    computer_->processes.back()->say(hello(exec_agent_version()));
    ASSERT_TRUE(ready && ready->ok());
  }

  std::shared_ptr<FakeComputer> computer_ = std::make_shared<FakeComputer>();
  ManualClock clock_;
};

TEST_F(ExecAgentChannelTest, TheFirstOpenCopiesTheProgramInThenWaitsForTheHello) {
  auto channel = make_channel();
  std::optional<Expected<Done>> ready;
  channel->open([&](Expected<Done> outcome) { ready = std::move(outcome); });
  ASSERT_EQ(computer_->installed.size(), 1u);
  EXPECT_EQ(computer_->installed[0], std::string("\x7f" "ELF program"));
  EXPECT_TRUE(computer_->processes.empty()) << "nothing starts before the copy is in";
  computer_->finish_install();
  ASSERT_EQ(computer_->processes.size(), 1u);
  EXPECT_EQ(computer_->processes[0]->launch.argv,
            std::vector<std::string>{kExecAgentPathInComputer});
  EXPECT_TRUE(computer_->processes[0]->launch.user.empty()) << "the agent runs as commands do";
  EXPECT_FALSE(ready);
  computer_->processes[0]->say(hello(exec_agent_version()));
  ASSERT_TRUE(ready);
  EXPECT_TRUE(ready->ok());
  EXPECT_TRUE(channel->is_open());

  // Open already: answered at once, nothing copied or started again.
  bool again = false;
  channel->open([&](Expected<Done> outcome) { again = outcome.ok(); });
  EXPECT_TRUE(again);
  EXPECT_EQ(computer_->installed.size(), 1u);
  EXPECT_EQ(computer_->processes.size(), 1u);
}

TEST_F(ExecAgentChannelTest, AnAgentOfAnotherVersionIsReplacedOnceThenTheComputerIsUnusable) {
  auto channel = make_channel();
  open(*channel);
  channel->reset("the computer restarted", false);
  // The same incarnation answered before: no copy, the agent is started at once.
  std::optional<Expected<Done>> ready;
  channel->open([&](Expected<Done> outcome) { ready = std::move(outcome); });
  ASSERT_EQ(computer_->processes.size(), 2u);
  EXPECT_EQ(computer_->installed.size(), 1u);
  computer_->processes[1]->say(hello("sha256-old"));
  EXPECT_TRUE(computer_->processes[1]->closed) << "the old agent's stdin is closed";
  ASSERT_EQ(computer_->installed.size(), 2u) << "replaced";
  computer_->finish_install();
  computer_->processes[2]->say(hello("sha256-old"));
  ASSERT_TRUE(ready);
  ASSERT_FALSE(ready->ok());
  EXPECT_EQ(ready->error().status, VC_E_UNSUPPORTED);
  EXPECT_NE(ready->error().message.find("still reports version sha256-old"), std::string::npos)
      << ready->error().message;
  // Decided for this incarnation: the next open says so without trying.
  std::optional<Expected<Done>> later;
  channel->open([&](Expected<Done> outcome) { later = std::move(outcome); });
  ASSERT_TRUE(later && !later->ok());
  EXPECT_EQ(computer_->processes.size(), 3u);
  // A new incarnation (a new pod) is tried afresh.
  computer_->incarnation_ = "pod-uid-2";
  channel->open([](Expected<Done>) {});
  EXPECT_EQ(computer_->installed.size(), 3u);
}

TEST_F(ExecAgentChannelTest, AnAgentThatNeverSaysHelloIsKilledAndUnusable) {
  auto channel = make_channel();
  std::optional<Expected<Done>> ready;
  channel->open([&](Expected<Done> outcome) { ready = std::move(outcome); });
  computer_->finish_install();
  computer_->processes[0]->events.output(VC_STREAM_STDERR, "loading...\n");
  clock_.advance(9s);
  EXPECT_FALSE(ready);
  clock_.advance(2s);
  ASSERT_TRUE(ready && !ready->ok());
  EXPECT_EQ(ready->error().status, VC_E_UNSUPPORTED);
  EXPECT_NE(ready->error().message.find("did not say hello within 10 s"), std::string::npos);
  EXPECT_NE(ready->error().message.find("loading..."), std::string::npos)
      << "what it said is in the reason: " << ready->error().message;
  EXPECT_TRUE(computer_->processes[0]->killed);
}

TEST_F(ExecAgentChannelTest, AProgramThatCannotRunEndsBeforeItsHelloAndSaysWhy) {
  auto channel = make_channel();
  std::optional<Expected<Done>> ready;
  channel->open([&](Expected<Done> outcome) { ready = std::move(outcome); });
  computer_->finish_install();
  auto process = computer_->processes[0];
  process->events.output(VC_STREAM_STDERR, "sh: exec: vc-exec-agent: Exec format error\n");
  process->exit_code = 126;
  process->end();
  ASSERT_TRUE(ready && !ready->ok());
  EXPECT_EQ(ready->error().status, VC_E_UNSUPPORTED);
  EXPECT_NE(ready->error().message.find("exit code 126"), std::string::npos) << ready->error().message;
  EXPECT_NE(ready->error().message.find("Exec format error"), std::string::npos);
}

TEST_F(ExecAgentChannelTest, AComputerThatIsNotRunningFailsTheOpenWithTheEnginesWords) {
  auto channel = make_channel();
  computer_->refuse_start = OpFailure{VC_E_COMPUTER_STOPPED, "Computer it-1 is not running.", nullptr};
  std::optional<Expected<Done>> ready;
  channel->open([&](Expected<Done> outcome) { ready = std::move(outcome); });
  computer_->finish_install();
  ASSERT_TRUE(ready && !ready->ok());
  EXPECT_EQ(ready->error().status, VC_E_COMPUTER_STOPPED);
  EXPECT_FALSE(channel->is_open());
}

TEST_F(ExecAgentChannelTest, ACommandIsFramesDownAndFramesBackAndALostLineTellsEveryCommand) {
  auto channel = make_channel();
  open(*channel);
  auto process = computer_->processes.back();
  process->written.clear();

  std::string out;
  std::optional<AgentExit> exited;
  ExecAgentChannel::CommandEvents events;
  events.output = [&](vc_stream, std::string_view bytes) { out += bytes; };
  events.exited = [&](const AgentExit& exit) { exited = exit; };
  const std::string input(100 * 1024, 'x');  // more than one stdin chunk
  const auto id = channel->start_command(
      nlohmann::json{{"argv", {"cat"}}, {"timeout_ms", 1000}, {"stdin", true}}, input, events);
  const auto sent = frames_in(process->written);
  ASSERT_EQ(sent.size(), 4u) << "start, two stdin pieces, stdin_end";
  EXPECT_EQ(sent[0].type, FrameType::kStart);
  EXPECT_EQ(sent[0].id, id);
  EXPECT_EQ(nlohmann::json::parse(sent[0].payload)["argv"][0], "cat");
  EXPECT_EQ(sent[1].type, FrameType::kStdin);
  EXPECT_EQ(sent[1].payload.size() + sent[2].payload.size(), input.size());
  EXPECT_EQ(sent[3].type, FrameType::kStdinEnd);

  process->say(exec_agent::encode_frame(FrameType::kStdout, id, "hello "));
  process->say(exec_agent::encode_frame(FrameType::kStdout, id + 1, "not this one"));
  process->say(exec_agent::encode_frame(FrameType::kStdout, id, "world"));
  process->say(exec_agent::encode_frame(
      FrameType::kExit, id, R"({"outcome":"exited","exit_code":0,"duration_ms":3})"));
  EXPECT_EQ(out, "hello world");
  ASSERT_TRUE(exited);
  EXPECT_EQ(exited->outcome, "exited");
  EXPECT_EQ(exited->duration_ms, 3);

  // Two commands under way when the line ends: both hear why; the next open starts afresh.
  std::vector<std::string> lost;
  ExecAgentChannel::CommandEvents losing;
  losing.lost = [&](const std::string& why) { lost.push_back(why); };
  channel->start_command(nlohmann::json{{"argv", {"sleep", "9"}}}, {}, losing);
  channel->start_command(nlohmann::json{{"argv", {"sleep", "9"}}}, {}, losing);
  process->end("the connection to the API server broke");
  ASSERT_EQ(lost.size(), 2u);
  EXPECT_NE(lost[0].find("the connection to the API server broke"), std::string::npos) << lost[0];
  EXPECT_FALSE(channel->is_open());
}

TEST_F(ExecAgentChannelTest, WhatIsNotAFrameAfterTheHelloRestartsTheAgent) {
  auto channel = make_channel();
  open(*channel);
  std::string lost;
  ExecAgentChannel::CommandEvents events;
  events.lost = [&](const std::string& why) { lost = why; };
  channel->start_command(nlohmann::json{{"argv", {"true"}}}, {}, events);
  auto process = computer_->processes.back();
  process->say(std::string(9, '\xff'));  // an unknown frame type
  EXPECT_NE(lost.find("not its protocol"), std::string::npos) << lost;
  EXPECT_TRUE(process->killed);
}

class DesktopChannelTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeComputer> computer_ = std::make_shared<FakeComputer>();
  ManualClock clock_;
  std::shared_ptr<DesktopChannel> channel_ =
      DesktopChannel::make(computer_, clock_, sdk::HostLog(nullptr));
};

TEST_F(DesktopChannelTest, RequestsWaitForTheReadyLineAndRepliesFindTheirRequests) {
  std::optional<Expected<nlohmann::json>> first, second;
  channel_->send({{"action", "screenshot"}}, 30s, [&](Expected<nlohmann::json> r) { first = r; });
  channel_->send({{"action", "type"}, {"text", "hi"}}, 30s,
                 [&](Expected<nlohmann::json> r) { second = r; });
  ASSERT_EQ(computer_->processes.size(), 1u) << "one agent for both";
  auto process = computer_->processes[0];
  EXPECT_EQ(process->launch.argv, std::vector<std::string>{kDesktopAgentPath});
  EXPECT_EQ(process->launch.user, kDesktopAgentUser);
  EXPECT_EQ(process->launch.working_directory, "/workspace");
  EXPECT_TRUE(process->written.empty()) << "nothing is written before the ready line";

  process->say("{\"ready\":true}\n");
  ASSERT_EQ(std::count(process->written.begin(), process->written.end(), '\n'), 2);
  const auto line = nlohmann::json::parse(process->written.substr(0, process->written.find('\n')));
  EXPECT_EQ(line["action"], "screenshot");
  const auto id = line["id"].get<std::uint64_t>();

  // Replies in any order, a line in two pieces.
  process->say("{\"id\":" + std::to_string(id + 1) + ",\"ok\":false,\"code\":\"invalid_argument\",");
  process->say("\"error\":\"Unknown key.\"}\n{\"id\":" + std::to_string(id) +
               ",\"ok\":true,\"result\":{\"width\":1280}}\n");
  ASSERT_TRUE(first && first->ok());
  EXPECT_EQ(first->value()["width"], 1280);
  ASSERT_TRUE(second && !second->ok());
  EXPECT_EQ(second->error().status, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(second->error().message, "Unknown key.");
}

TEST_F(DesktopChannelTest, AnActionPastItsDeadlineFailsAndTheStuckAgentIsKilled) {
  std::optional<Expected<nlohmann::json>> reply;
  channel_->send({{"action", "wait_for_screen"}}, 30s, [&](Expected<nlohmann::json> r) { reply = r; });
  auto process = computer_->processes[0];
  process->say("{\"ready\":true}\n");
  clock_.advance(31s);
  ASSERT_TRUE(reply && !reply->ok());
  EXPECT_EQ(reply->error().status, VC_E_TIMEOUT);
  EXPECT_TRUE(process->killed);
  // The next action starts a new agent.
  channel_->send({{"action", "screenshot"}}, 30s, [](Expected<nlohmann::json>) {});
  EXPECT_EQ(computer_->processes.size(), 2u);
}

TEST_F(DesktopChannelTest, ACancelledActionInFlightEndsTheAgentSoTheNextOneAnswersAtOnce) {
  // Withdrawn before it was written: nothing to stop.
  std::optional<Expected<nlohmann::json>> early;
  const auto waiting = channel_->send({{"action", "screenshot"}}, 30s,
                                      [&](Expected<nlohmann::json> r) { early = r; });
  channel_->withdraw(waiting);
  ASSERT_TRUE(early && !early->ok());
  EXPECT_EQ(early->error().status, VC_E_CANCELLED);
  auto process = computer_->processes[0];
  process->say("{\"ready\":true}\n");
  EXPECT_FALSE(process->killed);
  EXPECT_TRUE(process->written.empty()) << "a withdrawn request is never written";

  // Withdrawn while the agent types it: the agent is ended, the request behind it told so.
  std::optional<Expected<nlohmann::json>> typing, behind;
  const auto ticket = channel_->send({{"action", "type"}, {"text", std::string(5000, 'x')}}, 60s,
                                     [&](Expected<nlohmann::json> r) { typing = r; });
  channel_->send({{"action", "screenshot"}}, 30s, [&](Expected<nlohmann::json> r) { behind = r; });
  channel_->withdraw(ticket);
  ASSERT_TRUE(typing && !typing->ok());
  EXPECT_EQ(typing->error().status, VC_E_CANCELLED);
  EXPECT_TRUE(process->killed) << "the typing must stop";
  ASSERT_TRUE(behind && !behind->ok());
  EXPECT_EQ(behind->error().status, VC_E_UNAVAILABLE);
  EXPECT_NE(behind->error().message.find("cancelled 'type'"), std::string::npos)
      << behind->error().message;
  EXPECT_EQ(behind->error().details.value("retryable", false), true);

  // The next action gets a new agent, not the 30 s wait of a stuck one.
  std::optional<Expected<nlohmann::json>> next;
  channel_->send({{"action", "screenshot"}}, 30s, [&](Expected<nlohmann::json> r) { next = r; });
  ASSERT_EQ(computer_->processes.size(), 2u);
  computer_->processes[1]->say("{\"ready\":true}\n");
  const auto line = nlohmann::json::parse(computer_->processes[1]->written);
  computer_->processes[1]->say("{\"id\":" + std::to_string(line["id"].get<std::uint64_t>()) +
                               ",\"ok\":true,\"result\":{}}\n");
  ASSERT_TRUE(next && next->ok());
}

TEST_F(DesktopChannelTest, AnImageWithoutTheAgentIsUnsupportedAndAStoppedOneUnavailable) {
  std::optional<Expected<nlohmann::json>> reply;
  channel_->send({{"action", "screenshot"}}, 30s, [&](Expected<nlohmann::json> r) { reply = r; });
  auto process = computer_->processes[0];
  process->events.output(VC_STREAM_STDERR, "vc-desktop-agent: cannot open display :99\n");
  process->exit_code = 1;
  process->end();
  ASSERT_TRUE(reply && !reply->ok());
  EXPECT_EQ(reply->error().status, VC_E_UNAVAILABLE) << reply->error().message;
  EXPECT_NE(reply->error().message.find("cannot open display"), std::string::npos);

  // An image without the desktop's user (what runuser says in a pod).
  computer_->processes.clear();
  std::optional<Expected<nlohmann::json>> no_user;
  channel_->send({{"action", "screenshot"}}, 30s, [&](Expected<nlohmann::json> r) { no_user = r; });
  computer_->processes[0]->events.output(VC_STREAM_STDERR,
                                         "runuser: user computer does not exist\n");
  computer_->processes[0]->exit_code = 1;
  computer_->processes[0]->end();
  ASSERT_TRUE(no_user && !no_user->ok());
  EXPECT_EQ(no_user->error().status, VC_E_UNSUPPORTED) << no_user->error().message;

  computer_->processes.clear();
  std::optional<Expected<nlohmann::json>> missing;
  channel_->send({{"action", "screenshot"}}, 30s, [&](Expected<nlohmann::json> r) { missing = r; });
  computer_->processes[0]->exit_code = 127;
  computer_->processes[0]->end();
  ASSERT_TRUE(missing && !missing->ok());
  EXPECT_EQ(missing->error().status, VC_E_UNSUPPORTED) << missing->error().message;

  computer_->refuse_start = OpFailure{VC_E_COMPUTER_STOPPED, "It is stopped.", nullptr};
  std::optional<Expected<nlohmann::json>> stopped;
  channel_->send({{"action", "screenshot"}}, 30s, [&](Expected<nlohmann::json> r) { stopped = r; });
  ASSERT_TRUE(stopped && !stopped->ok());
  EXPECT_EQ(stopped->error().status, VC_E_UNAVAILABLE);
  EXPECT_NE(stopped->error().message.find("is not running"), std::string::npos);
}

}  // namespace
}  // namespace vc::agent_channel
