// process_tools_test.cpp — processes that outlive a tool call (docs/processes.md) through the real
// host on Docker and Podman, as an agent uses them: a server started in the background and asked
// by a second command, a program fed line by line, a prompt answered, a program in a terminal,
// Ctrl-C, kill, a flood of output, a host restart and a computer restart. Checked from outside
// too: the engine's own exec looks at the computer's processes and the log files.
#include <string>
#include <thread>

#include "engine_test.h"

namespace vc::integration {
namespace {

// A TCP server in the image's perl (perl-base is in every Debian image): says "listening", then
// answers each connection's first line with "pong <line>" and logs it.
constexpr const char* kServer =
    "exec perl -MIO::Socket::INET -e '$| = 1; my $s = IO::Socket::INET->new(LocalAddr => "
    "\"127.0.0.1:8765\", Listen => 5, ReuseAddr => 1) or die \"listen: $!\"; print \"listening\\n\"; "
    "while (my $c = $s->accept) { my $l = <$c>; print \"request: $l\"; print $c \"pong $l\"; "
    "close $c }'";
constexpr const char* kClient =
    "perl -MIO::Socket::INET -e 'my $c = IO::Socket::INET->new(\"127.0.0.1:8765\") or die "
    "\"connect: $!\"; print $c \"ping 42\\n\"; print scalar <$c>'";

class ProcessToolsTest : public EngineTest {
 protected:
  void TearDown() override {
    if (host_) close_host(host_);
    EngineTest::TearDown();
  }
  void start(std::vector<std::string> extra_args = {}) {
    HostOptions options;
    options.extra_args = std::move(extra_args);
    host_ = start_host(options);
  }
  Json tool(const std::string& name, const Json& arguments = Json::object()) {
    return host_->call_tool(name, arguments, 180s);
  }
  Json ok(const std::string& name, const Json& arguments = Json::object()) {
    const Json result = tool(name, arguments);
    EXPECT_FALSE(test::McpClient::is_error(result))
        << name << " " << arguments.dump().substr(0, 300) << " failed: " << result.dump().substr(0, 800);
    return test::McpClient::payload_of(result);
  }
  // The error sentence of a call that must fail: the tool's {"error"}, or the text of an
  // argument the input schema refused.
  std::string refused(const std::string& name, const Json& arguments) {
    const Json result = tool(name, arguments);
    EXPECT_TRUE(test::McpClient::is_error(result)) << name << " " << result.dump().substr(0, 800);
    const Json payload = test::McpClient::payload_of(result);
    return payload.is_object() ? payload.value("error", result.dump()) : result.dump();
  }
  std::string outside(const std::string& script) const {
    return engine().run_cli({"exec", container_name(), "sh", "-c", script}).out;
  }
  // Reads until `text` shows up in the stream (bounded), returning everything read after
  // `first` (a call's payload whose output counts too). Output comes as the process writes it:
  // a line and its echo may arrive in two reads.
  std::string read_until(const std::string& id, const std::string& text,
                         const char* stream = "stdout", const Json& first = Json::object()) {
    std::string seen = first.value(stream, "");
    for (int attempt = 0; attempt < 20 && seen.find(text) == std::string::npos; ++attempt) {
      const Json read = ok("process_read", {{"process_id", id}, {"wait_ms", 2000}});
      seen += read.value(stream, "");
      if (!read.value("running", false)) break;
    }
    return seen;
  }
  // The process's state once it has ended (reads until it says so, bounded).
  Json wait_until_ended(const std::string& id) {
    Json read = ok("process_read", {{"process_id", id}, {"wait_ms", 2000}});
    for (int attempt = 0; attempt < 20 && read.value("running", false); ++attempt) {
      read = ok("process_read", {{"process_id", id}, {"wait_ms", 2000}});
    }
    return read;
  }
  // How many processes in the computer have `word` in their command line (from /proc). The
  // pattern's first letter is bracketed so that the counting shell does not count itself.
  int processes_with(const std::string& word) const {
    const std::string pattern = "[" + word.substr(0, 1) + "]" + word.substr(1);
    return count_of("for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f 2>/dev/null | "
                    "grep -q -- '" + pattern + "' && n=$((n+1)); done");
  }
  // How many processes in the computer run the program `name` (/proc/<pid>/comm).
  int processes_named(const std::string& name) const {
    return count_of("for f in /proc/[0-9]*/comm; do [ \"$(cat $f 2>/dev/null)\" = '" + name +
                    "' ] && n=$((n+1)); done");
  }
  int count_of(const std::string& loop) const {
    const std::string counted = outside("n=0; " + loop + "; echo $n");
    return counted.empty() ? -1 : std::stoi(counted);
  }

  std::unique_ptr<test::McpClient> host_;
};

TEST_P(ProcessToolsTest, ABackgroundServerAnswersASecondCommandWhileItRuns) {
  start();
  const Json started = ok("process_start", {{"command", kServer}, {"wait_ms", 1500}});
  const std::string id = started.value("process_id", "");
  ASSERT_EQ(id.rfind('p', 0), 0u) << started.dump();
  EXPECT_TRUE(started.value("running", false)) << started.dump();
  EXPECT_EQ(started.value("stdout", ""), "listening\n") << started.dump();

  // terminal_execute goes on working beside it, and reaches it.
  const Json asked = execute(*host_, {{"command", kClient}});
  EXPECT_EQ(asked.value("stdout", ""), "pong ping 42\n") << asked.dump();
  EXPECT_EQ(read_until(id, "request: ping 42"), "request: ping 42\n");

  const Json listed = ok("process_list");
  ASSERT_EQ(listed.value("count", 0), 1) << listed.dump();
  EXPECT_EQ(listed["processes"][0].value("process_id", ""), id);
  EXPECT_EQ(listed["processes"][0].value("state", ""), "running");
  const std::string log = listed["processes"][0]["log_paths"].value("stdout", "");
  ASSERT_FALSE(log.empty()) << listed.dump();
  // The whole output is in the log file inside the computer, for grep.
  EXPECT_EQ(execute(*host_, {{"command", "grep -c ping " + log}}).value("stdout", ""), "1\n");

  const Json killed = ok("process_kill", {{"process_id", id}});
  EXPECT_FALSE(killed.value("running", true)) << killed.dump();
  EXPECT_EQ(killed.value("signal", ""), "TERM") << killed.dump();
  EXPECT_EQ(killed.value("exit_code", 0), 128 + 15) << killed.dump();
  EXPECT_EQ(processes_with("IO::Socket"), 0);
}

TEST_P(ProcessToolsTest, AnInteractiveProgramIsFedLineByLineAndAPromptIsAnswered) {
  start();
  const Json started = ok(
      "process_start",
      {{"command", "while read -r line; do echo \"you said: $line\"; echo \"note: $line\" >&2; "
                   "[ \"$line\" = bye ] && break; done; printf 'Continue? [y/N] '; read -r a; "
                   "echo \"answer=$a\"; exit 7"},
       {"wait_ms", 200}});
  const std::string id = started.value("process_id", "");
  EXPECT_TRUE(started.value("running", false)) << started.dump();
  EXPECT_EQ(started.value("stdout", "x"), "");

  const Json first = ok("process_write", {{"process_id", id}, {"input", "hello\n"}});
  EXPECT_EQ(first.value("stdout", ""), "you said: hello\n") << first.dump();
  // stderr stays apart (it may come a read later).
  EXPECT_EQ(read_until(id, "note: hello\n", "stderr", first), "note: hello\n");
  const Json second = ok("process_write", {{"process_id", id}, {"input", "bye\n"}});
  EXPECT_EQ(read_until(id, "[y/N] ", "stdout", second), "you said: bye\nContinue? [y/N] ");
  const Json answered = ok("process_write", {{"process_id", id}, {"input", "y\n"}, {"wait_ms", 3000}});
  EXPECT_EQ(read_until(id, "answer=y\n", "stdout", answered), "answer=y\n");
  const Json ended = wait_until_ended(id);
  EXPECT_FALSE(ended.value("running", true)) << ended.dump();
  EXPECT_EQ(ended.value("exit_code", 0), 7) << ended.dump();

  // Without working_directory a process runs in the workspace, as terminal_execute's commands do.
  EXPECT_EQ(ok("process_start", {{"command", "pwd"}, {"wait_ms", 5000}}).value("stdout", ""),
            "/workspace\n");
  // Writing to a process that ended says so, and changes nothing.
  EXPECT_NE(refused("process_write", {{"process_id", id}, {"input", "more\n"}}).find("ended"),
            std::string::npos);
  // A pipe closed by close_stdin: cat ends on end of file.
  const Json cat = ok("process_start", {{"args", Json::array({"cat"})}, {"wait_ms", 0}});
  const Json closed = ok("process_write", {{"process_id", cat.value("process_id", "")},
                                           {"input", "last line\n"},
                                           {"close_stdin", true},
                                           {"wait_ms", 3000}});
  const std::string cat_id = cat.value("process_id", "");
  EXPECT_EQ(read_until(cat_id, "last line\n", "stdout", closed), "last line\n");
  EXPECT_EQ(wait_until_ended(cat_id).value("exit_code", -1), 0) << "cat saw the end of its input";
}

TEST_P(ProcessToolsTest, AProgramInATerminalSeesATerminalOfItsSizeAndCtrlCStopsIt) {
  start();
  const Json tty = ok("process_start",
                      {{"command", "[ -t 0 ] && [ -t 1 ] && echo is-a-tty; stty size; echo TERM=$TERM"},
                       {"pty", true}, {"rows", 40}, {"cols", 132}, {"wait_ms", 5000}});
  EXPECT_TRUE(tty.value("pty", false)) << tty.dump();
  EXPECT_EQ(tty.value("output", ""), "is-a-tty\r\n40 132\r\nTERM=xterm-256color\r\n") << tty.dump();
  EXPECT_FALSE(tty.contains("stdout")) << "one stream in a terminal: " << tty.dump();
  EXPECT_EQ(tty.value("exit_code", -1), 0) << tty.dump();

  // A REPL-like loop in a terminal: typed input is echoed by the terminal, Ctrl-C ends it.
  const Json loop = ok("process_start",
                       {{"command", "while read -r l; do echo \"got $l\"; done"}, {"pty", true},
                        {"wait_ms", 300}});
  const std::string id = loop.value("process_id", "");
  const Json typed = ok("process_write", {{"process_id", id}, {"input", "abc\r"}});
  EXPECT_EQ(read_until(id, "got abc\r\n", "output", typed), "abc\r\ngot abc\r\n")
      << "the terminal echoes what is typed, then the program answers";
  ok("process_write", {{"process_id", id}, {"input", "\u0003"}});
  const Json interrupted = wait_until_ended(id);
  EXPECT_FALSE(interrupted.value("running", true)) << interrupted.dump();
  EXPECT_EQ(interrupted.value("signal", ""), "INT") << interrupted.dump();
  EXPECT_EQ(interrupted.value("exit_code", 0), 130) << interrupted.dump();
}

TEST_P(ProcessToolsTest, KillEndsTheWholeGroupAndAFloodOfOutputStaysBounded) {
  start();
  const Json group = ok("process_start",
                        {{"command", "sleep 1001 & sleep 1002 & echo started; wait"}, {"wait_ms", 500}});
  EXPECT_EQ(group.value("stdout", ""), "started\n") << group.dump();
  EXPECT_EQ(processes_named("sleep"), 2);
  const Json killed = ok("process_kill", {{"process_id", group.value("process_id", "")}, {"signal", "KILL"}});
  EXPECT_FALSE(killed.value("running", true)) << killed.dump();
  EXPECT_EQ(processes_named("sleep"), 0) << "kill leaves nothing of the group behind";

  // 50 MB that nobody reads while it is written: the computer keeps the tail and counts the rest.
  const Json flood = ok("process_start",
                        {{"command", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 50000000; echo; echo THE-END"},
                         {"wait_ms", 30000}});
  const std::string id = flood.value("process_id", "");
  EXPECT_FALSE(flood.value("running", true)) << "50 MB take well under 30 s";
  std::string tail = flood.value("stdout", "");
  std::int64_t dropped = flood.value("stdout_dropped", std::int64_t{0});
  bool more = flood.value("more", false);
  EXPECT_LE(tail.size(), 64u * 1024) << "a call returns at most 64 KiB";
  for (int reads = 0; more && reads < 20; ++reads) {
    const Json read = ok("process_read", {{"process_id", id}, {"wait_ms", 0}});
    EXPECT_LE(read.value("stdout", "").size(), 64u * 1024);
    tail = read.value("stdout", "");
    dropped += read.value("stdout_dropped", std::int64_t{0});
    more = read.value("more", false);
  }
  EXPECT_FALSE(more);
  EXPECT_GT(dropped, 40'000'000) << "most of it was dropped from memory, and counted";
  ASSERT_GE(tail.size(), 8u);
  EXPECT_EQ(tail.substr(tail.size() - 8), "THE-END\n") << "the tail is readable";
  const std::string log = ok("process_list")["processes"][1]["log_paths"].value("stdout", "");
  EXPECT_EQ(outside("stat -c %s " + log), "50000009\n") << "the log file has all of it";
}

TEST_P(ProcessToolsTest, BadInputGetsAClearErrorAndLosesNothing) {
  start();
  const Json running = ok("process_start", {{"command", "sleep 600"}, {"wait_ms", 0}});
  const std::string id = running.value("process_id", "");
  EXPECT_NE(refused("process_read", {{"process_id", "p999"}}).find("No process 'p999'"),
            std::string::npos);
  EXPECT_NE(refused("process_read", {{"process_id", "nope"}}).find("process_id"), std::string::npos);
  EXPECT_NE(refused("process_start", {{"command", "x"}, {"args", Json::array({"y"})}})
                .find("exactly one of command and args"),
            std::string::npos);
  EXPECT_NE(refused("process_start", {{"command", "true"}, {"pty", true}, {"rows", 1}}).find("rows"),
            std::string::npos);
  EXPECT_NE(refused("process_start", {{"command", "true"}, {"wait_ms", 999999}}).find("wait_ms"),
            std::string::npos);
  EXPECT_NE(refused("process_start", {{"command", "true"}, {"env", {{"BAD NAME", "x"}}}}).find("env"),
            std::string::npos);
  EXPECT_NE(refused("process_start", {{"command", "true"}, {"working_directory", "/no/such/dir"}})
                .find("/no/such/dir"),
            std::string::npos);
  EXPECT_NE(refused("process_write", {{"process_id", id}, {"input", std::string(70000, 'x')}})
                .find("65536"),
            std::string::npos);
  EXPECT_NE(refused("process_kill", {{"process_id", id}, {"signal", "BOOM"}}).find("signal"),
            std::string::npos);
  // Nothing of that touched the running process.
  const Json still = ok("process_read", {{"process_id", id}, {"wait_ms", 0}});
  EXPECT_TRUE(still.value("running", false)) << still.dump();
  // The cap on running processes: a clear error, then room again once one ends.
  for (int i = 1; i < 32; ++i) ok("process_start", {{"command", "sleep 600"}, {"wait_ms", 0}});
  EXPECT_NE(refused("process_start", {{"command", "sleep 600"}, {"wait_ms", 0}}).find("32"),
            std::string::npos);
  ok("process_kill", {{"process_id", id}, {"signal", "KILL"}});
  ok("process_start", {{"command", "true"}, {"wait_ms", 0}});
}

TEST_P(ProcessToolsTest, ProcessesOutliveTheHostAndEndWithTheComputer) {
  start({"--lifecycle-tools"});
  const Json ticking = ok("process_start",
                          {{"command", "i=0; while :; do echo tick $i; i=$((i+1)); sleep 0.1; done"},
                           {"wait_ms", 500}});
  const std::string id = ticking.value("process_id", "");
  EXPECT_EQ(ticking.value("stdout", "").rfind("tick 0\n", 0), 0u) << ticking.dump();
  close_host(host_);

  // The next host finds it running and reads on where the last read left off.
  start({"--lifecycle-tools"});
  const Json listed = ok("process_list");
  ASSERT_EQ(listed.value("count", 0), 1) << listed.dump();
  EXPECT_EQ(listed["processes"][0].value("state", ""), "running") << listed.dump();
  const std::string later = ok("process_read", {{"process_id", id}, {"wait_ms", 1000}}).value("stdout", "");
  ASSERT_FALSE(later.empty());
  EXPECT_EQ(later.rfind("tick ", 0), 0u) << later;
  EXPECT_EQ(later.find("tick 0\n"), std::string::npos) << "read on, not from the start: " << later;

  // A restart of the computer ends it, and the list says so.
  ok("computer_restart", {{"computer_id", computer_id()}});
  const Json after = ok("process_list");
  ASSERT_EQ(after.value("count", 0), 1) << after.dump();
  EXPECT_EQ(after["processes"][0].value("state", ""), "lost") << after.dump();
  EXPECT_FALSE(after["processes"][0].value("running", true));
  EXPECT_NE(after["processes"][0].value("note", "").find("restarted"), std::string::npos) << after.dump();
  EXPECT_EQ(processes_with("tick"), 0);
  // And new ones start with a new id.
  const Json next = ok("process_start", {{"command", "echo again"}, {"wait_ms", 2000}});
  EXPECT_NE(next.value("process_id", ""), id);
  EXPECT_EQ(next.value("stdout", ""), "again\n");
}

VC_INSTANTIATE_FOR_ENGINES(ProcessToolsTest);

}  // namespace
}  // namespace vc::integration
