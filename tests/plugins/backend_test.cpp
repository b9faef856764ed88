// backend_test.cpp — the host side of the ABI against the conformance plugin: the completion
// pump (asynchronous delivery, order, exactly once), emit accounting, cancellation, failures,
// host services, and the lifecycle (create, shutdown, release).
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "plugin_test_support.h"
#include "backend_proxy/backend.h"
#include "backend_proxy/op_record.h"
#include "backend_proxy/plugin_backend.h"

namespace vc::plugins {
namespace {

// The proxy under test runs the plugins this room loads.
using namespace vc::backend_proxy;

namespace fs = std::filesystem;
using testing::LogCapture;
using testing::OpTrace;
using testing::ScratchDir;
using testing::test_backend;

class BackendTest : public testing::LoopTest {
 protected:
  std::shared_ptr<PluginModule> load(const std::string& name = "conformance") {
    auto module = PluginModule::load(test_backend(name));
    EXPECT_TRUE(module.ok()) << module.error().message;
    return module.ok() ? module.value() : nullptr;
  }

  std::shared_ptr<Backend> create(const Json& options = Json::object(),
                                  const std::string& plugin = "conformance") {
    auto backend = Backend::create(loop(), load(plugin), options, scratch_.path() / "state");
    EXPECT_TRUE(backend.ok()) << backend.error().message;
    return backend.ok() ? backend.value() : nullptr;
  }

  std::shared_ptr<OpTrace> start(Backend& backend, Operation op,
                                 const Json& request = Json::object(), uint64_t output_limit = 0,
                                 std::string_view stdin_bytes = {}) {
    auto trace = std::make_shared<OpTrace>();
    handle_ = backend.start(op, request, OpTrace::record(trace, output_limit), stdin_bytes);
    return trace;
  }

  // Starts `op`, checks nothing arrives inside start(), runs the loop until it completes.
  std::shared_ptr<OpTrace> run(Backend& backend, Operation op, const Json& request = Json::object(),
                               uint64_t output_limit = 0, std::string_view stdin_bytes = {}) {
    auto trace = start(backend, op, request, output_limit, stdin_bytes);
    EXPECT_TRUE(trace->events.empty()) << "a callback ran inside start()";
    EXPECT_TRUE(run_until([&] { return trace->done(); }))
        << operation_name(op) << " never completed";
    return trace;
  }

  Json diagnostics(Backend& backend) {
    auto trace = run(backend, Operation::tool_instructions);
    EXPECT_TRUE(trace->result->ok());
    return trace->result->ok() ? trace->value() : Json();
  }

  void shut_down(Backend& backend, uint64_t deadline_ms = 60000) {
    bool done = false;
    backend.shutdown(deadline_ms, [&done] { done = true; });
    EXPECT_FALSE(done) << "shutdown's callback ran inside shutdown()";
    EXPECT_TRUE(run_until([&] { return done; })) << "shutdown never finished";
  }

  ScratchDir scratch_;
  CancelHandle handle_;
};

// ---- delivery ------------------------------------------------------------------------------

TEST_F(BackendTest, ACompletionMadeInsideTheOpFunctionArrivesOnALaterTurn) {
  auto backend = create();
  ASSERT_TRUE(backend);
  auto trace = run(*backend, Operation::validate);
  ASSERT_TRUE(trace->result->ok()) << trace->failure().message;
  EXPECT_EQ(trace->value(), Json::parse(R"({"engine":"conformance","engine_version":"1.0"})"));
  run_turns(5);
  EXPECT_EQ(trace->completions, 1);
  EXPECT_EQ(backend->pending_ops(), 0u);
  shut_down(*backend);
}

TEST_F(BackendTest, EmitsFromAPluginThreadArriveInOrderBeforeTheCompletion) {
  auto backend = create();
  auto trace = run(*backend, Operation::exec, Json{{"computer_id", "c"}, {"command", "stream"}});
  EXPECT_EQ(trace->events, (std::vector<std::string>{"stdout:out-1\n", "stderr:err-1\n",
                                                     "stdout:out-2\n", "complete"}));
  ASSERT_TRUE(trace->result->ok());
  EXPECT_EQ(trace->value()["outcome"], "exited");
  shut_down(*backend);
}

TEST_F(BackendTest, ProgressEventsPrecedeTheCompletion) {
  auto backend = create();
  auto trace = run(*backend, Operation::ensure_image);
  ASSERT_EQ(trace->events.size(), 3u);
  EXPECT_EQ(trace->events[0], R"(progress:{"progress":1,"total":2,"message":"checking"})");
  EXPECT_EQ(trace->events[1], R"(progress:{"progress":2,"total":2,"message":"present"})");
  EXPECT_EQ(trace->events[2], "complete");
  shut_down(*backend);
}

TEST_F(BackendTest, ExecReceivesTheStdinBytes) {
  auto backend = create();
  const std::string input("line one\n\0binary\xff", 17);
  auto trace = run(*backend, Operation::exec, Json{{"command", "echo-stdin"}}, 0, input);
  EXPECT_EQ(trace->out, input);
  shut_down(*backend);
}

TEST_F(BackendTest, ManyOpsAtOnceEachCompleteExactlyOnce) {
  auto backend = create();
  std::vector<std::shared_ptr<OpTrace>> traces;
  for (int i = 0; i < 50; ++i) {
    traces.push_back(start(*backend, i % 2 ? Operation::validate : Operation::ensure_image));
  }
  EXPECT_EQ(backend->pending_ops(), 50u);
  ASSERT_TRUE(run_until([&] { return backend->pending_ops() == 0; }));
  run_turns(5);
  for (const auto& trace : traces) EXPECT_EQ(trace->completions, 1);
  shut_down(*backend);
}

// ---- failures ------------------------------------------------------------------------------

TEST_F(BackendTest, ASynchronousRejectionArrivesAsAFailureOnALaterTurn) {
  auto backend = create();
  auto trace = run(*backend, Operation::list);
  ASSERT_FALSE(trace->result->ok());
  EXPECT_EQ(trace->failure().status, VC_E_BUSY);
  EXPECT_EQ(trace->failure().message,
            "The conformance backend rejected list (status -8, VC_E_BUSY) without saying why.");
  // A 1.0 plugin has no other way to refuse an op: nothing to warn about.
  EXPECT_FALSE(LogCapture::contains("rejected synchronously"));
  shut_down(*backend);
}

TEST_F(BackendTest, A11PluginsSynchronousRejectionIsAnsweredAndWarnedAboutOnce) {
  LogCapture::clear();
  auto backend = create(Json::object(), "op-ids");
  ASSERT_TRUE(backend);
  for (int i = 0; i < 3; ++i) {
    auto trace = run(*backend, Operation::create);
    ASSERT_FALSE(trace->result->ok());
    EXPECT_EQ(trace->failure().status, VC_E_BUSY);
    EXPECT_EQ(trace->failure().message,
              "The op-ids backend rejected create (status -8, VC_E_BUSY) without saying why.");
  }
  const std::string log = LogCapture::all();
  const std::string warning =
      "plugin misbehaving: the op-ids backend's create was rejected synchronously (status -8, "
      "VC_E_BUSY), which ABI 1.1 deprecates";
  const size_t first = log.find(warning);
  ASSERT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find(warning, first + 1), std::string::npos) << "warned more than once: " << log;
  EXPECT_EQ(std::dynamic_pointer_cast<PluginBackend>(backend)->stats().misbehaviours, 1u);
  shut_down(*backend);
}

// ---- op ids (ABI 1.1) ----------------------------------------------------------------------

TEST_F(BackendTest, EveryOpGetsANonzeroIdNeverUsedBefore) {
  auto backend = create(Json::object(), "op-ids");
  ASSERT_TRUE(backend);
  std::vector<uint64_t> ids;
  for (int i = 0; i < 20; ++i) {
    auto trace = run(*backend, Operation::validate);
    ASSERT_TRUE(trace->result->ok()) << trace->failure().message;
    ids.push_back(trace->value()["op_id"].get<uint64_t>());
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_NE(ids[i], 0u);
    for (size_t j = 0; j < i; ++j) EXPECT_NE(ids[i], ids[j]);
  }
  shut_down(*backend);

  // Unique for the process, not per instance: a second instance continues the sequence.
  auto second = create(Json::object(), "op-ids");
  ASSERT_TRUE(second);
  auto trace = run(*second, Operation::validate);
  ASSERT_TRUE(trace->result->ok()) << trace->failure().message;
  EXPECT_GT(trace->value()["op_id"].get<uint64_t>(), ids.back());
  shut_down(*second);
}

TEST_F(BackendTest, APluginCancelsByTheOpsId) {
  auto backend = create(Json::object(), "op-ids");
  ASSERT_TRUE(backend);
  auto first = start(*backend, Operation::wait_for_death);
  CancelHandle first_handle = handle_;
  auto second = start(*backend, Operation::wait_for_death);
  CancelHandle second_handle = handle_;
  run_turns(3);
  EXPECT_EQ(backend->pending_ops(), 2u);

  first_handle->cancel();
  ASSERT_TRUE(run_until([&] { return first->done(); }));
  EXPECT_EQ(first->failure().status, VC_E_CANCELLED);
  EXPECT_EQ(first->failure().message.rfind("Cancelled by id ", 0), 0u) << first->failure().message;
  run_turns(3);
  EXPECT_FALSE(second->done()) << "the cancel reached the wrong op";

  first_handle->cancel();  // late: the plugin no longer knows the id
  second_handle->cancel();
  ASSERT_TRUE(run_until([&] { return second->done(); }));
  EXPECT_EQ(second->failure().status, VC_E_CANCELLED);
  EXPECT_NE(first->failure().message, second->failure().message);
  run_turns(3);
  EXPECT_EQ(first->completions, 1);
  EXPECT_EQ(second->completions, 1);
  shut_down(*backend);
}

TEST_F(BackendTest, AnEmptySlotIsUnsupported) {
  auto backend = create();
  auto trace = run(*backend, Operation::attach);
  ASSERT_FALSE(trace->result->ok());
  EXPECT_EQ(trace->failure().status, VC_E_UNSUPPORTED);
  EXPECT_EQ(trace->failure().message, "The conformance backend does not support attach.");
  shut_down(*backend);
}

// ---- the checkpoints extension (ABI 1.2) ----------------------------------------------------

TEST_F(BackendTest, AWholeCheckpointsTableIsOfferedAndItsOpsReachThePlugin) {
  auto backend = create(Json::object(), "checkpoints");
  const ExtensionOffer offer = backend->checkpoints_offer();
  EXPECT_TRUE(offer.returned);
  EXPECT_EQ(offer.struct_size, sizeof(vc_backend_checkpoints));
  EXPECT_TRUE(offer.usable);
  EXPECT_TRUE(offer.null_slots.empty());
  EXPECT_TRUE(backend->offers_checkpoints());

  auto listed = run(*backend, Operation::list_checkpoints, {{"computer_id", "c"}});
  ASSERT_TRUE(listed->result->ok()) << listed->failure().message;
  EXPECT_EQ(listed->value()["checkpoints"][0]["name"], "kept");
  auto deleted = run(*backend, Operation::delete_checkpoint, {{"computer_id", "c"}, {"name", "kept"}});
  ASSERT_TRUE(deleted->result->ok());
  EXPECT_EQ(deleted->value()["deleted"], true);
  auto forked = run(*backend, Operation::fork_checkpoint,
                    {{"computer_id", "c"}, {"new_computer_id", "d"}, {"name", "gone"}});
  ASSERT_FALSE(forked->result->ok());
  EXPECT_EQ(forked->failure().status, VC_E_NOT_FOUND);
  EXPECT_EQ(forked->failure().message, "No checkpoint named that.");
  shut_down(*backend);
}

TEST_F(BackendTest, ANullCheckpointSlotIsNamedAndAnsweredUnsupported) {
  auto backend = create(Json::object(), "checkpoints-null-slot");
  const ExtensionOffer offer = backend->checkpoints_offer();
  EXPECT_TRUE(offer.usable);
  ASSERT_EQ(offer.null_slots.size(), 1u);
  EXPECT_EQ(offer.null_slots[0], Operation::fork_checkpoint);
  auto forked = run(*backend, Operation::fork_checkpoint,
                    {{"computer_id", "c"}, {"new_computer_id", "d"}});
  ASSERT_FALSE(forked->result->ok());
  EXPECT_EQ(forked->failure().status, VC_E_UNSUPPORTED);
  auto listed = run(*backend, Operation::list_checkpoints, {{"computer_id", "c"}});
  EXPECT_TRUE(listed->result->ok());
  shut_down(*backend);
}

TEST_F(BackendTest, ACheckpointsTableTooShortForEveryOpIsNotUsed) {
  auto backend = create(Json::object(), "checkpoints-short");
  const ExtensionOffer offer = backend->checkpoints_offer();
  EXPECT_TRUE(offer.returned);
  EXPECT_EQ(offer.struct_size, offsetof(vc_backend_checkpoints, delete_checkpoint));
  EXPECT_FALSE(offer.usable);
  EXPECT_FALSE(backend->offers_checkpoints());
  auto listed = run(*backend, Operation::list_checkpoints, {{"computer_id", "c"}});
  ASSERT_FALSE(listed->result->ok());
  EXPECT_EQ(listed->failure().status, VC_E_UNSUPPORTED);
  shut_down(*backend);
}

TEST_F(BackendTest, APluginWithoutTheExtensionOffersNoCheckpoints) {
  auto backend = create();
  EXPECT_FALSE(backend->checkpoints_offer().returned);
  EXPECT_FALSE(backend->offers_checkpoints());
  shut_down(*backend);
}

// ---- the processes extension (ABI 1.3) ------------------------------------------------------

TEST_F(BackendTest, AWholeProcessesTableIsOfferedAndItsOpsReachThePlugin) {
  auto backend = create(Json::object(), "processes");
  const ExtensionOffer offer = backend->processes_offer();
  EXPECT_TRUE(offer.returned);
  EXPECT_EQ(offer.struct_size, sizeof(vc_backend_processes));
  EXPECT_TRUE(offer.usable);
  EXPECT_TRUE(offer.null_slots.empty());
  EXPECT_TRUE(backend->offers_processes());
  EXPECT_FALSE(backend->offers_checkpoints()) << "the tables are read one by one";

  auto started = run(*backend, Operation::start_process,
                     {{"computer_id", "c"}, {"command", "echo hello; sleep 100"}});
  ASSERT_TRUE(started->result->ok()) << started->failure().message;
  EXPECT_EQ(started->value()["process"]["process_id"], "p1");
  EXPECT_EQ(started->value()["output"]["stdout"], "hello\n");
  auto read = run(*backend, Operation::read_process, {{"computer_id", "c"}, {"process_id", "p1"}});
  ASSERT_TRUE(read->result->ok()) << read->failure().message;
  EXPECT_EQ(read->value()["process"]["state"], "running");
  auto written = run(*backend, Operation::write_process,
                     {{"computer_id", "c"}, {"process_id", "p1"}, {"input", "x\n"}});
  ASSERT_TRUE(written->result->ok()) << written->failure().message;
  auto killed = run(*backend, Operation::kill_process,
                    {{"computer_id", "c"}, {"process_id", "p1"}, {"signal", "TERM"}});
  ASSERT_TRUE(killed->result->ok()) << killed->failure().message;
  EXPECT_EQ(killed->value()["process"]["signal"], "TERM");
  EXPECT_EQ(killed->value()["process"]["exit_code"], 143);
  auto listed = run(*backend, Operation::list_processes, {{"computer_id", "c"}});
  ASSERT_TRUE(listed->result->ok()) << listed->failure().message;
  ASSERT_TRUE(listed->value()["processes"].is_array());
  EXPECT_EQ(listed->value()["processes"][0]["process_id"], "p1");

  auto unknown = run(*backend, Operation::read_process, {{"computer_id", "c"}, {"process_id", "p9"}});
  ASSERT_FALSE(unknown->result->ok());
  EXPECT_EQ(unknown->failure().status, VC_E_NOT_FOUND);
  EXPECT_EQ(unknown->failure().message, "No process with that id in computer c.");
  shut_down(*backend);
}

TEST_F(BackendTest, ANullProcessesSlotIsNamedAndAnsweredUnsupported) {
  auto backend = create(Json::object(), "processes-null-slot");
  const ExtensionOffer offer = backend->processes_offer();
  EXPECT_TRUE(offer.usable);
  EXPECT_TRUE(backend->offers_processes());
  ASSERT_EQ(offer.null_slots.size(), 1u);
  EXPECT_EQ(offer.null_slots[0], Operation::write_process);
  auto written = run(*backend, Operation::write_process,
                     {{"computer_id", "c"}, {"process_id", "p1"}, {"input", "x"}});
  ASSERT_FALSE(written->result->ok());
  EXPECT_EQ(written->failure().status, VC_E_UNSUPPORTED);
  auto read = run(*backend, Operation::read_process, {{"computer_id", "c"}, {"process_id", "p1"}});
  EXPECT_TRUE(read->result->ok());
  shut_down(*backend);
}

TEST_F(BackendTest, AProcessesTableTooShortForEveryOpIsNotUsed) {
  auto backend = create(Json::object(), "processes-short");
  const ExtensionOffer offer = backend->processes_offer();
  EXPECT_TRUE(offer.returned);
  EXPECT_EQ(offer.struct_size, offsetof(vc_backend_processes, list_processes));
  EXPECT_FALSE(offer.usable);
  EXPECT_FALSE(backend->offers_processes());
  // Not even the slots the short table holds are called.
  auto started = run(*backend, Operation::start_process, {{"computer_id", "c"}, {"command", "true"}});
  ASSERT_FALSE(started->result->ok());
  EXPECT_EQ(started->failure().status, VC_E_UNSUPPORTED);
  auto listed = run(*backend, Operation::list_processes, {{"computer_id", "c"}});
  ASSERT_FALSE(listed->result->ok());
  EXPECT_EQ(listed->failure().status, VC_E_UNSUPPORTED);
  shut_down(*backend);
}

TEST_F(BackendTest, APluginWithoutTheExtensionOffersNoProcesses) {
  auto backend = create();
  EXPECT_FALSE(backend->processes_offer().returned);
  EXPECT_FALSE(backend->offers_processes());
  shut_down(*backend);
  // Nor does a 1.2 plugin that offers another extension.
  auto checkpoints = create(Json::object(), "checkpoints");
  EXPECT_FALSE(checkpoints->processes_offer().returned);
  EXPECT_FALSE(checkpoints->offers_processes());
  shut_down(*checkpoints);
}

TEST_F(BackendTest, InvalidJsonFromThePluginIsAFailure) {
  auto backend = create();
  auto trace = run(*backend, Operation::get_desktop_environment);
  ASSERT_FALSE(trace->result->ok());
  EXPECT_EQ(trace->failure().status, VC_E_FAILED);
  EXPECT_EQ(trace->failure().message.rfind(
                "The conformance backend returned invalid JSON for get_desktop_environment: parse "
                "error",
                0),
            0u)
      << trace->failure().message;
  shut_down(*backend);
}

TEST_F(BackendTest, AFailureWithoutAMessageGetsOneNamingTheOpAndStatus) {
  auto backend = create();
  auto trace = run(*backend, Operation::set_network_access, Json{{"enabled", true}});
  ASSERT_FALSE(trace->result->ok());
  EXPECT_EQ(trace->failure().status, VC_E_NOT_FOUND);
  EXPECT_EQ(trace->failure().message,
            "The conformance backend failed set_network_access (status -4, VC_E_NOT_FOUND) "
            "without saying why.");
  shut_down(*backend);
}

TEST_F(BackendTest, APluginPrivateStatusReadsAsFailedAndKeepsTheMessage) {
  auto backend = create();
  auto trace = run(*backend, Operation::set_network_access, Json{{"enabled", false}});
  ASSERT_FALSE(trace->result->ok());
  EXPECT_EQ(trace->failure().status, VC_E_FAILED);
  EXPECT_EQ(trace->failure().message, "private failure");
  shut_down(*backend);
}

TEST_F(BackendTest, AnUnknownPositiveStatusIsSuccess) {
  auto backend = create();
  auto trace = run(*backend, Operation::factory_reset);
  ASSERT_TRUE(trace->result->ok()) << trace->failure().message;
  EXPECT_EQ(trace->value()["sandbox_id"], "s-2");
  shut_down(*backend);
}

TEST_F(BackendTest, ASecondCompletionAndLateEmitsAreDroppedAndLogged) {
  auto backend = create();
  auto trace = run(*backend, Operation::restart);
  run_turns(5);
  EXPECT_EQ(trace->completions, 1);
  EXPECT_EQ(trace->events, (std::vector<std::string>{"complete"}));
  ASSERT_TRUE(trace->result->ok());
  EXPECT_EQ(trace->value()["state"], "running");

  const Json seen = diagnostics(*backend)["diagnostics"];
  EXPECT_EQ(seen["unknown_stream_status"], VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(seen["late_emit_status"], VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(std::dynamic_pointer_cast<PluginBackend>(backend)->stats().misbehaviours, 3u);
  // Op ids are unique in the process, so the restart's depends on the tests run before: it is
  // read from the first line and must be the same in the others.
  const std::string log = LogCapture::all();
  const std::string prefix =
      "backend.org.example.conformance: plugin misbehaving: the conformance backend's restart "
      "(op ";
  const size_t at = log.find(prefix);
  ASSERT_NE(at, std::string::npos) << log;
  const size_t id_at = at + prefix.size();
  const std::string op = "restart (op " + log.substr(id_at, log.find(')', id_at) - id_at) + ")";
  EXPECT_TRUE(LogCapture::contains(op + " was completed again")) << log;
  EXPECT_TRUE(LogCapture::contains(op + " emitted to unknown stream 99; rejected"));
  EXPECT_TRUE(LogCapture::contains(op + " emitted after completing; rejected"));
  shut_down(*backend);
}

// ---- emit accounting -----------------------------------------------------------------------

// Byte k of the conformance plugin's flood is (k / 64 KiB) & 0xff.
bool is_flood_pattern(std::string_view bytes, uint64_t offset) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto expected = static_cast<char>(((offset + i) / (64 * 1024)) & 0xff);
    if (bytes[i] != expected) return false;
  }
  return true;
}

TEST_F(BackendTest, OutputIsCutExactlyAtTheLimitAndThePluginIsTold) {
  auto backend = create();
  const uint64_t limit = 100000;
  auto trace =
      run(*backend, Operation::exec, Json{{"command", "flood"}, {"flood_bytes", 1 << 20}}, limit);
  EXPECT_EQ(trace->out.size(), limit);
  EXPECT_TRUE(is_flood_pattern(trace->out, 0));
  ASSERT_TRUE(trace->result->ok());
  EXPECT_EQ(trace->value()["outcome"], "output_limit_exceeded");
  EXPECT_EQ(trace->value()["exit_code"], 1);
  shut_down(*backend);
}

TEST_F(BackendTest, OutputExactlyAtTheLimitIsNotTruncated) {
  auto backend = create();
  auto trace = run(*backend, Operation::exec,
                   Json{{"command", "flood"}, {"flood_bytes", 128 * 1024}}, 128 * 1024);
  EXPECT_EQ(trace->out.size(), 128u * 1024u);
  EXPECT_EQ(trace->value()["outcome"], "exited");
  shut_down(*backend);
}

TEST_F(BackendTest, BackpressureWhileTheLoopFallsBehindLosesNoBytes) {
  auto backend = create();
  auto plugin_backend = std::dynamic_pointer_cast<PluginBackend>(backend);
  const uint64_t total = 3 * kQueueHighWaterBytes;
  uint64_t received = 0;
  bool in_order = true;
  bool done = false;
  Json result;
  OpCallbacks callbacks;
  callbacks.on_emit = [&](vc_stream, std::string_view bytes) {
    in_order = in_order && is_flood_pattern(bytes, received);
    received += bytes.size();
  };
  callbacks.on_complete = [&](Expected<Json> outcome) {
    done = true;
    if (outcome.ok()) result = outcome.value();
  };
  backend->start(Operation::exec, Json{{"command", "flood"}, {"flood_bytes", total}},
                 std::move(callbacks));

  // The loop does not run: the plugin fills the queue to the high-water mark and hears
  // VC_E_BACKPRESSURE (a bounded wait, not a timing assertion).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (plugin_backend->stats().backpressure_replies == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GT(plugin_backend->stats().backpressure_replies, 0u);

  ASSERT_TRUE(run_until([&] { return done; }));
  EXPECT_EQ(received, total);
  EXPECT_TRUE(in_order);
  EXPECT_EQ(result["outcome"], "exited");
  EXPECT_GT(result["backpressure_replies"].get<uint64_t>(), 0u);
  shut_down(*backend);
}

// ---- cancellation --------------------------------------------------------------------------

TEST_F(BackendTest, CancelPushesToThePluginAndSetsTheFlagOnce) {
  auto backend = create();
  auto trace = start(*backend, Operation::wait_for_death, Json{{"computer_id", "c"}});
  EXPECT_EQ(backend->pending_ops(), 1u);
  run_turns(3);
  EXPECT_FALSE(trace->done());
  handle_->cancel();
  handle_->cancel();  // idempotent: pushed once
  ASSERT_TRUE(run_until([&] { return trace->done(); }));
  ASSERT_FALSE(trace->result->ok());
  EXPECT_EQ(trace->failure().status, VC_E_CANCELLED);
  EXPECT_EQ(trace->failure().message, "wait_for_death cancelled");
  handle_->cancel();  // after completion: harmless, not pushed
  EXPECT_EQ(diagnostics(*backend)["diagnostics"]["cancel_calls"], 1);
  EXPECT_EQ(backend->pending_ops(), 0u);
  shut_down(*backend);
}

TEST_F(BackendTest, CancellingAFinishedOpDoesNotReachThePlugin) {
  auto backend = create();
  auto trace = run(*backend, Operation::validate);
  handle_->cancel();
  EXPECT_EQ(diagnostics(*backend)["diagnostics"]["cancel_calls"], 0);
  shut_down(*backend);
}

// ---- host services and creation ------------------------------------------------------------

TEST_F(BackendTest, ThePluginSeesItsServicesAndConfig) {
  const Json options = {{"greeting", "hi"}, {"verbose", true}};
  auto backend = create(options);
  ASSERT_TRUE(backend);
  run(*backend, Operation::exec, Json{{"command", "stream"}});
  const Json report = diagnostics(*backend);
  const Json& seen = report["diagnostics"];
  EXPECT_EQ(seen["loop_thread_in_create"], 1);
  EXPECT_EQ(seen["loop_thread_on_worker"], 0);
  EXPECT_EQ(seen["unknown_extension_null"], 1);
  EXPECT_EQ(seen["state_dir_written"], 1);
  EXPECT_EQ(seen["entry_plugin_path"], test_backend("conformance").string());
  EXPECT_EQ(seen["entry_host_name"], "mcp-virtual-computer");
  EXPECT_EQ(report["config"], Json({{"options", options}}));
  EXPECT_TRUE(fs::exists(scratch_.path() / "state" / "conformance.state"));
  EXPECT_TRUE(LogCapture::contains("backend.org.example.conformance: conformance backend created"));
  EXPECT_TRUE(LogCapture::contains("backend.org.example.conformance: stream exec worker running"));
  shut_down(*backend);
}

TEST_F(BackendTest, NullOptionsBecomeAnEmptyObject) {
  auto backend = create(Json());
  EXPECT_EQ(diagnostics(*backend)["config"], Json::parse(R"({"options":{}})"));
  shut_down(*backend);
}

TEST_F(BackendTest, TheStateDirectoryIsCreatedWithItsParents) {
  const fs::path nested = scratch_.path() / "a" / "b" / "c";
  auto backend = Backend::create(loop(), load(), Json::object(), nested);
  ASSERT_TRUE(backend.ok()) << backend.error().message;
  EXPECT_TRUE(fs::is_directory(nested));
  shut_down(*backend.value());
}

TEST_F(BackendTest, AStateDirectoryThatCannotBeCreatedIsAFailure) {
  const fs::path file = scratch_.path() / "file";
  std::ofstream(file) << "x";
  auto backend = Backend::create(loop(), load(), Json::object(), file / "state");
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().message.rfind("Cannot create the state directory " +
                                              (file / "state").string() +
                                              " of the conformance backend: ",
                                          0),
            0u)
      << backend.error().message;
}

TEST_F(BackendTest, AFailingFactoryReportsThePluginsMessage) {
  auto backend = Backend::create(loop(), load("factory-fails"), Json::object(), scratch_.path());
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().status, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(backend.error().message,
            "The factory-fails backend failed to start: engine config invalid: boom");
}

TEST_F(BackendTest, TheBackendKeepsItsModule) {
  auto module = load();
  auto backend = Backend::create(loop(), module, Json::object(), scratch_.path());
  ASSERT_TRUE(backend.ok());
  EXPECT_GT(module.use_count(), 1);
  module.reset();
  auto trace = run(*backend.value(), Operation::validate);
  EXPECT_TRUE(trace->result->ok());
  EXPECT_EQ(backend.value()->info().name, "conformance");
  shut_down(*backend.value());
}

// ---- lifecycle -----------------------------------------------------------------------------

TEST_F(BackendTest, ShutdownCancelsWaitsForPendingOpsThenDestroys) {
  auto backend = create();
  auto waiting = start(*backend, Operation::wait_for_death, Json{{"computer_id", "c"}});
  bool done = false;
  bool completed_before_done = false;
  backend->shutdown(60000, [&] {
    completed_before_done = waiting->done();
    done = true;
  });
  ASSERT_TRUE(run_until([&] { return done; }));
  EXPECT_TRUE(completed_before_done);
  EXPECT_EQ(waiting->completions, 1);
  EXPECT_EQ(waiting->failure().status, VC_E_CANCELLED);
  EXPECT_EQ(backend->pending_ops(), 0u);
  EXPECT_TRUE(LogCapture::contains("conformance backend destroyed after joining 1 thread(s)"))
      << LogCapture::all();

  // After shutdown, a new op fails on a later turn; a second shutdown still calls back.
  auto late = start(*backend, Operation::validate);
  EXPECT_FALSE(late->done());
  ASSERT_TRUE(run_until([&] { return late->done(); }));
  EXPECT_EQ(late->failure().status, VC_E_UNAVAILABLE);
  EXPECT_EQ(late->failure().message,
            "The conformance backend is shutting down; validate was not started.");
  shut_down(*backend);
}

TEST_F(BackendTest, ShutdownPastItsDeadlineAbandonsTheInstanceInsteadOfDestroyingIt) {
  auto backend = create();
  const fs::path release = scratch_.path() / "release";
  auto stuck = start(*backend, Operation::create, Json{{"release_file", release.string()}});
  shut_down(*backend, 20);
  EXPECT_EQ(stuck->completions, 1);
  ASSERT_FALSE(stuck->result->ok());
  EXPECT_EQ(stuck->failure().status, VC_E_TIMEOUT);
  EXPECT_EQ(stuck->failure().message,
            "The conformance backend did not finish create within the 20 ms shutdown deadline; "
            "it was abandoned.");
  EXPECT_TRUE(LogCapture::contains("not destroying its instance")) << LogCapture::all();
  EXPECT_FALSE(LogCapture::contains("conformance backend destroyed"));

  // Let the plugin's thread finish: its late completion must be dropped, not delivered.
  std::ofstream(release) << "go";
  ASSERT_TRUE(run_until([&] { return fs::exists(release.string() + ".done"); }));
  run_turns(5);
  EXPECT_EQ(stuck->completions, 1);
}

TEST_F(BackendTest, ReleasingWithoutShutdownDestroysAnIdleInstance) {
  auto backend = create();
  run(*backend, Operation::exec, Json{{"command", "stream"}});
  backend.reset();
  EXPECT_TRUE(LogCapture::contains("was released without a finished shutdown()"));
  EXPECT_TRUE(LogCapture::contains("conformance backend destroyed after joining 1 thread(s)"));
}

TEST_F(BackendTest, ACallbackMayReleaseTheLastReferenceToTheBackend) {
  auto backend = create();
  bool completed = false;
  OpCallbacks callbacks;
  callbacks.on_complete = [&](Expected<Json>) {
    completed = true;
    backend.reset();  // the backend must survive until its dispatch has returned
  };
  backend->start(Operation::validate, Json::object(), std::move(callbacks));
  ASSERT_TRUE(run_until([&] { return completed; }));
  EXPECT_FALSE(backend);
  EXPECT_TRUE(LogCapture::contains("conformance backend destroyed after joining 0 thread(s)"));
}

TEST_F(BackendTest, ACallbackMayStartTheNextOp) {
  auto backend = create();
  auto second = std::make_shared<OpTrace>();
  OpCallbacks callbacks;
  callbacks.on_complete = [&](Expected<Json>) {
    backend->start(Operation::validate, Json::object(), OpTrace::record(second));
  };
  backend->start(Operation::ensure_image, Json::object(), std::move(callbacks));
  ASSERT_TRUE(run_until([&] { return second->done(); }));
  EXPECT_TRUE(second->result->ok());
  shut_down(*backend);
}

}  // namespace
}  // namespace vc::plugins
