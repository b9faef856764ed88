// Tests of the process tools over a fake backend: when they are offered (the backend's
// extension, --no-process-tools), the requests they send (args become argv, nothing but the
// extension's fields), their argument checks before any backend op, and their payloads (pipes
// apart, one "output" for a terminal, dropped bytes and "more" only when they say something).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <vc-backend-1/vc_status.h>

#include "process_tools_fixture.h"

namespace vc::tools {
namespace {

using backend_proxy::Operation;
using test_support::FakeReply;

Json process_result(bool pty, const std::string& state, Json output) {
  return Json{{"process", Json{{"process_id", "p3"},
                               {"command", "npm run dev"},
                               {"argv", Json::array({"/bin/bash", "-c", "npm run dev"})},
                               {"working_directory", "/workspace"},
                               {"pty", pty},
                               {"pid", 321},
                               {"state", state},
                               {"exit_code", state == "running" ? Json() : Json(130)},
                               {"signal", state == "running" ? Json() : Json("INT")},
                               {"started", "2026-12-07T20:00:00.000Z"},
                               {"ended", state == "running" ? Json() : Json("2026-12-07T20:00:05.000Z")},
                               {"log_paths", pty ? Json{{"output", "/var/tmp/vc-processes-0/p3/output.log"}}
                                                 : Json{{"stdout", "/var/tmp/vc-processes-0/p3/stdout.log"},
                                                        {"stderr", "/var/tmp/vc-processes-0/p3/stderr.log"}}}}},
              {"output", std::move(output)}};
}

Json output(const std::string& out, const std::string& err, std::int64_t dropped, bool more) {
  return Json{{"stdout", out},          {"stderr", err},        {"stdout_dropped", dropped},
              {"stderr_dropped", 0},    {"stdout_offset", 100}, {"stderr_offset", 0},
              {"more", more}};
}

using ProcessToolsTest = test_support::ProcessToolsFixture;

const std::vector<std::string> kProcessTools = {"process_start", "process_read", "process_write",
                                                "process_kill", "process_list"};

bool has_all(const std::vector<std::string>& names, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  });
}

TEST_F(ProcessToolsTest, OfferedWhenTheBackendHoldsProcessesUnlessTurnedOff) {
  EXPECT_TRUE(has_all(build(), kProcessTools));
  EXPECT_FALSE(has_all(build(false), {"process_start"}));
  backend_->set_processes(false);
  EXPECT_FALSE(has_all(build(), {"process_start"}));
}

TEST_F(ProcessToolsTest, StartSendsArgsAsArgvAndAnswersWithTheProcessAndItsOutput) {
  build();
  backend_->script(Operation::start_process,
                   FakeReply::ok(process_result(false, "running", output("ready\n", "warn\n", 0, false))));
  const auto started = call("process_start", {{"args", Json::array({"npm", "run", "dev"})},
                                              {"env", {{"PORT", "3000"}}},
                                              {"wait_ms", 250}});
  ASSERT_FALSE(started->failed()) << started->payload().dump();
  const auto sent = backend_->started(Operation::start_process);
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0]->request["argv"], Json::array({"npm", "run", "dev"}));
  EXPECT_FALSE(sent[0]->request.contains("args"));
  EXPECT_EQ(sent[0]->request["env"]["PORT"], "3000");
  EXPECT_EQ(sent[0]->request["wait_ms"], 250);
  EXPECT_EQ(sent[0]->request["computer_id"], test_support::kFakeComputerId);

  const Json& payload = started->payload();
  EXPECT_EQ(payload["process_id"], "p3");
  EXPECT_EQ(payload["running"], true);
  EXPECT_TRUE(payload["exit_code"].is_null());
  EXPECT_EQ(payload["stdout"], "ready\n");
  EXPECT_EQ(payload["stderr"], "warn\n");
  EXPECT_FALSE(payload.contains("stdout_dropped")) << "only when bytes were lost";
  EXPECT_FALSE(payload.contains("more"));
  EXPECT_EQ(payload["log_paths"]["stdout"], "/var/tmp/vc-processes-0/p3/stdout.log");
}

TEST_F(ProcessToolsTest, ATerminalProcessHasOneOutputAndDroppedBytesAreSaid) {
  build();
  backend_->script(Operation::read_process,
                   FakeReply::ok(process_result(true, "exited", output("^C\r\n", "", 4096, true))));
  const auto read = call("process_read", {{"process_id", "p3"}});
  ASSERT_FALSE(read->failed()) << read->payload().dump();
  const Json& payload = read->payload();
  EXPECT_EQ(payload["output"], "^C\r\n");
  EXPECT_FALSE(payload.contains("stdout"));
  EXPECT_FALSE(payload.contains("stderr"));
  EXPECT_EQ(payload["output_dropped"], 4096);
  EXPECT_EQ(payload["more"], true);
  EXPECT_EQ(payload["running"], false);
  EXPECT_EQ(payload["exit_code"], 130);
  EXPECT_EQ(payload["signal"], "INT");
}

TEST_F(ProcessToolsTest, BadArgumentsAreRefusedBeforeTheBackendIsAsked) {
  build();
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json{{"tool", "process_start"}, {"arguments", Json::object()}}, "exactly one of command and args"},
      {Json{{"tool", "process_start"}, {"arguments", {{"command", "x"}, {"args", Json::array({"y"})}}}},
       "exactly one of command and args"},
      {Json{{"tool", "process_start"}, {"arguments", {{"command", "x"}, {"env", {{"1BAD", "v"}}}}}},
       "is not a variable name"},
      {Json{{"tool", "process_start"}, {"arguments", {{"command", "x"}, {"working_directory", "rel"}}}},
       "absolute"},
      {Json{{"tool", "process_start"}, {"arguments", {{"command", std::string(70000, 'x')}}}},
       "at most 65536 bytes"},
      {Json{{"tool", "process_read"}, {"arguments", {{"process_id", "p0"}}}}, "process_id"},
      {Json{{"tool", "process_write"}, {"arguments", {{"process_id", "p1"}, {"input", std::string(70000, 'x')}}}},
       "at most 65536 bytes can be written at once"},
      {Json{{"tool", "process_kill"}, {"arguments", {{"process_id", "p1"}, {"signal", "SEGV"}}}},
       "signal must be one of"},
  };
  for (const auto& [request, expected] : cases) {
    const auto refused = call(request["tool"], request["arguments"]);
    ASSERT_TRUE(refused->failed()) << request.dump().substr(0, 200);
    EXPECT_NE(refused->payload().value("error", "").find(expected), std::string::npos)
        << refused->payload().dump().substr(0, 300);
  }
  EXPECT_EQ(backend_->count(Operation::start_process) + backend_->count(Operation::read_process) +
                backend_->count(Operation::write_process) + backend_->count(Operation::kill_process),
            0U);
}

TEST_F(ProcessToolsTest, TheBackendsSentenceReachesTheModel) {
  build();
  backend_->script(Operation::write_process,
                   FakeReply::fail(VC_E_FAILED, "Process p3 has ended; it reads no more input."));
  const auto written = call("process_write", {{"process_id", "p3"}, {"input", "y\n"}});
  ASSERT_TRUE(written->failed());
  EXPECT_EQ(written->payload()["error"], "Process p3 has ended; it reads no more input.");
}

TEST_F(ProcessToolsTest, ListCountsTheRunningOnes) {
  build();
  Json listing{{"computer_id", test_support::kFakeComputerId},
               {"processes", Json::array({process_result(false, "running", output("", "", 0, false))["process"],
                                          process_result(true, "exited", output("", "", 0, false))["process"]})}};
  backend_->script(Operation::list_processes, FakeReply::ok(listing));
  const auto listed = call("process_list", Json::object());
  ASSERT_FALSE(listed->failed()) << listed->payload().dump();
  EXPECT_EQ(listed->payload()["count"], 2);
  EXPECT_EQ(listed->payload()["running"], 1);
  EXPECT_EQ(listed->payload()["processes"][1]["state"], "exited");
  EXPECT_FALSE(listed->payload()["processes"][0].contains("stdout")) << "a list has no output";
}

}  // namespace
}  // namespace vc::tools
