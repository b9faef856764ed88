// Tests of process_output, the App's view of a process's output, over a fake backend: offered
// right after the process tools and only with them, hidden from the model; the read it sends
// (from the given offsets, 64 KiB, no wait by default, so the agent's read position does not
// move); its payload (the process, its output, and where the next call starts); and its
// argument checks before any backend op.
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

Json read_answer(bool pty, Json output) {
  return Json{{"process", Json{{"process_id", "p2"},
                               {"command", "bash"},
                               {"argv", Json::array({"/bin/bash", "-c", "bash"})},
                               {"working_directory", "/workspace"},
                               {"pty", pty},
                               {"pid", 77},
                               {"state", "running"},
                               {"exit_code", nullptr},
                               {"signal", nullptr},
                               {"started", "2026-12-07T20:00:00.000Z"},
                               {"ended", nullptr},
                               {"log_paths", pty ? Json{{"output", "/var/tmp/vc-processes-1000/p2/output.log"}}
                                                 : Json{{"stdout", "/var/tmp/vc-processes-1000/p2/stdout.log"},
                                                        {"stderr", "/var/tmp/vc-processes-1000/p2/stderr.log"}}}}},
              {"output", std::move(output)}};
}

class ProcessOutputToolTest : public test_support::ProcessToolsFixture {
 protected:
  std::vector<std::string> make_catalog(bool process_tools = true) { return build(process_tools); }
  std::shared_ptr<test_support::ProcessCallRecorder> read_output(Json arguments) {
    return call("process_output", std::move(arguments));
  }
};

TEST_F(ProcessOutputToolTest, ComesRightAfterTheProcessToolsHiddenFromTheModel) {
  const auto names = make_catalog();
  const auto listed = std::find(names.begin(), names.end(), "process_list");
  ASSERT_NE(listed, names.end());
  ASSERT_NE(listed + 1, names.end());
  EXPECT_EQ(*(listed + 1), "process_output");
  const Json meta = tool("process_output")->definition().meta;
  EXPECT_EQ(meta["ui"]["visibility"], Json::array({"app"})) << meta.dump();
  EXPECT_EQ(tool("process_output")->definition().annotations.value("readOnlyHint", false), true);

  const auto off = make_catalog(false);
  EXPECT_EQ(std::find(off.begin(), off.end(), "process_output"), off.end()) << "--no-process-tools";
  backend_->set_processes(false);
  const auto none = make_catalog();
  EXPECT_EQ(std::find(none.begin(), none.end(), "process_output"), none.end())
      << "a backend without processes";
}

TEST_F(ProcessOutputToolTest, ReadsFromTheOffsetsWithoutMovingTheAgentsPosition) {
  make_catalog();
  backend_->script(Operation::read_process,
                   FakeReply::ok(read_answer(false, Json{{"stdout", "line 7\nline 8\n"},
                                                         {"stderr", "warn\n"},
                                                         {"stdout_dropped", 0},
                                                         {"stderr_dropped", 0},
                                                         {"stdout_offset", 140},
                                                         {"stderr_offset", 25},
                                                         {"more", false}})));
  const auto read = read_output({{"process_id", "p2"}, {"stdout_offset", 126},
                                 {"stderr_offset", 20}, {"wait_ms", 1000}});
  ASSERT_FALSE(read->failed()) << read->payload().dump();
  const auto sent = backend_->started(Operation::read_process);
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0]->request["process_id"], "p2");
  EXPECT_EQ(sent[0]->request["from"], (Json{{"stdout", 126}, {"stderr", 20}}))
      << "a read with from leaves the read position alone";
  EXPECT_EQ(sent[0]->request["wait_ms"], 1000);
  EXPECT_EQ(sent[0]->request["max_bytes"], 65536);
  EXPECT_EQ(sent[0]->request["computer_id"], test_support::kFakeComputerId);

  const Json& payload = read->payload();
  EXPECT_EQ(payload["process_id"], "p2");
  EXPECT_EQ(payload["running"], true);
  EXPECT_EQ(payload["stdout"], "line 7\nline 8\n");
  EXPECT_EQ(payload["stderr"], "warn\n");
  EXPECT_EQ(payload["stdout_offset"], 140);
  EXPECT_EQ(payload["stderr_offset"], 25);
}

TEST_F(ProcessOutputToolTest, ATerminalsOutputCountsAsStdoutAndTheDefaultsWaitForNothing) {
  make_catalog();
  backend_->script(Operation::read_process,
                   FakeReply::ok(read_answer(true, Json{{"stdout", "$ "},
                                                        {"stderr", ""},
                                                        {"stdout_dropped", 300},
                                                        {"stderr_dropped", 0},
                                                        {"stdout_offset", 302},
                                                        {"stderr_offset", 0},
                                                        {"more", true}})));
  const auto read = read_output({{"process_id", "p2"}});
  ASSERT_FALSE(read->failed()) << read->payload().dump();
  const auto sent = backend_->started(Operation::read_process);
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0]->request["from"], (Json{{"stdout", 0}, {"stderr", 0}}));
  EXPECT_EQ(sent[0]->request["wait_ms"], 0);

  const Json& payload = read->payload();
  EXPECT_EQ(payload["pty"], true);
  EXPECT_EQ(payload["output"], "$ ");
  EXPECT_FALSE(payload.contains("stdout"));
  EXPECT_EQ(payload["output_dropped"], 300) << "the log file has what memory no longer holds";
  EXPECT_EQ(payload["more"], true);
  EXPECT_EQ(payload["stdout_offset"], 302);
  EXPECT_EQ(payload["stderr_offset"], 0);
}

TEST_F(ProcessOutputToolTest, BadArgumentsAreRefusedBeforeTheBackendIsAsked) {
  make_catalog();
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json::object(), "process_id"},
      {Json{{"process_id", "p0"}}, "process_id"},
      {Json{{"process_id", "p1"}, {"stdout_offset", -1}}, "stdout_offset must be an integer from 0"},
      {Json{{"process_id", "p1"}, {"stderr_offset", "12"}}, "stderr_offset must be an integer from 0"},
      {Json{{"process_id", "p1"}, {"wait_ms", 30001}}, "wait_ms must be an integer from 0 to 30000"},
  };
  for (const auto& [arguments, expected] : cases) {
    const auto refused = read_output(arguments);
    ASSERT_TRUE(refused->failed()) << arguments.dump();
    EXPECT_NE(refused->payload().value("error", "").find(expected), std::string::npos)
        << refused->payload().dump();
  }
  EXPECT_EQ(backend_->count(Operation::read_process), 0U);
}

TEST_F(ProcessOutputToolTest, TheBackendsSentenceIsShownAsItIs) {
  make_catalog();
  backend_->script(Operation::read_process,
                   FakeReply::fail(VC_E_NOT_FOUND,
                                   "No process 'p9' in this computer. process_list shows the ones it holds."));
  const auto read = read_output({{"process_id", "p9"}});
  ASSERT_TRUE(read->failed());
  EXPECT_EQ(read->payload()["error"],
            "No process 'p9' in this computer. process_list shows the ones it holds.");
}

}  // namespace
}  // namespace vc::tools
