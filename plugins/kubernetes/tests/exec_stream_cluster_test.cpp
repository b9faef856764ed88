// exec_stream_cluster_test.cpp — ExecStream against the real cluster (label "kubernetes"):
// output and exit codes, binary stdin with backpressure, the end of stdin on v5 and v4, a TTY's
// size, commands and pods that do not exist, cancel, pings, refused credentials.
// Thread rule: the test's thread starts streams and waits; callbacks run on the ApiLoop.
#include <thread>

#include <gtest/gtest.h>

#include "exec_stream.h"
#include "stream_recorder.h"
#include "test_cluster.h"

namespace vc::kubernetes::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kCommandLimit = 60s;  // a busy 2-core machine; commands here take < 1 s

ExecRequest in_test_pod(const TestPod& pod, std::vector<std::string> command) {
  ExecRequest request;
  request.namespace_name = pod.namespace_name;
  request.pod = pod.pod;
  request.container = pod.container;
  request.command = std::move(command);
  return request;
}

// Runs `request` to its end; the recorder holds what it delivered.
std::shared_ptr<StreamRecorder> run(ApiLoop& loop, const ApiEndpoint& endpoint,
                                    ExecRequest request) {
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, endpoint, std::move(request), recorder->exec_callbacks());
  EXPECT_TRUE(recorder->wait_for_exit(kCommandLimit)) << "the command did not end";
  return recorder;
}

std::string describe(const ApiExpected<ExecExit>& result) {
  if (!result) {
    return std::string("error ") + api_error_kind_name(result.error().kind) + ": " +
           result.error().message;
  }
  const auto& exit = result.value();
  return "exit " + (exit.exit_code ? std::to_string(*exit.exit_code) : std::string("none")) +
         " reason " + exit.reason + " message " + exit.message;
}

TEST(ExecStreamOnCluster, ReportsStdoutStderrAndTheExitCode) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto run_result = run(loop, pod->endpoint,
                        in_test_pod(*pod, {"sh", "-c", "echo hello; echo err >&2; exit 3"}));
  ASSERT_TRUE(run_result->exit.has_value());
  const auto& result = *run_result->exit;
  ASSERT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(result.value().exit_code, 3);
  EXPECT_EQ(result.value().reason, "NonZeroExitCode");
  EXPECT_EQ(run_result->out, "hello\n");
  EXPECT_EQ(run_result->err, "err\n");
  EXPECT_EQ(run_result->ends, 1);
  // Kubernetes before 1.29 has no v5; the stream must have settled for v4 there.
  ASSERT_TRUE(run_result->protocol.has_value());
  if (pod->server_minor_version < 29) {
    EXPECT_EQ(*run_result->protocol, ChannelProtocol::v4);
  }
}

TEST(ExecStreamOnCluster, ASuccessfulCommandExitsWithZero) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto request = in_test_pod(*pod, {"echo", "-n", "a b", "c"});  // argv as is, no shell
  request.with_stderr = false;
  auto run_result = run(loop, pod->endpoint, request);
  ASSERT_TRUE(run_result->exit.has_value());
  ASSERT_TRUE(run_result->exit->ok()) << describe(*run_result->exit);
  EXPECT_EQ(run_result->exit->value().exit_code, 0);
  EXPECT_TRUE(run_result->exit->value().reason.empty());
  EXPECT_EQ(run_result->out, "a b c");
}

// The runtime reports a process killed by a signal as an exit code: 128 + the signal's number.
TEST(ExecStreamOnCluster, AProcessKilledByASignalExitsWith128PlusItsNumber) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto run_result = run(loop, pod->endpoint, in_test_pod(*pod, {"sh", "-c", "kill -KILL $$"}));
  ASSERT_TRUE(run_result->exit.has_value());
  ASSERT_TRUE(run_result->exit->ok()) << describe(*run_result->exit);
  EXPECT_EQ(run_result->exit->value().exit_code, 128 + 9);
  EXPECT_EQ(run_result->exit->value().reason, "NonZeroExitCode");
}

// 1 MiB with every byte value, 0x00 and 0xff included, through `head -c`, which ends after
// reading that much (so no end of stdin is needed, which v4 cannot signal). The queue's bound is
// a quarter of it and the writes begin before the stream is open, so the writer must wait for
// on_stdin_drained.
TEST(ExecStreamOnCluster, BinaryStdinRoundTripsWithBackpressure) {
  VC_TEST_POD_OR_SKIP(pod);
  constexpr std::size_t kTotal = 1024 * 1024;
  constexpr std::size_t kPiece = 64 * 1024;
  std::string input(kTotal, '\0');
  for (std::size_t i = 0; i < kTotal; ++i) input[i] = static_cast<char>((i * 7 + i / 256) & 0xff);
  ASSERT_NE(input.find('\0'), std::string::npos);
  ASSERT_NE(input.find('\xff'), std::string::npos);

  ApiLoop loop;
  auto request = in_test_pod(*pod, {"head", "-c", std::to_string(kTotal)});
  request.with_stdin = true;
  request.max_queued_stdin_bytes = 256 * 1024;
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod->endpoint, request, recorder->exec_callbacks());

  int refusals = 0;
  for (std::size_t at = 0; at < kTotal;) {
    const int drained_before = recorder->drained_count();
    const auto admission = stream->write_stdin(input.substr(at, kPiece));
    if (admission == WriteAdmission::queued) {
      at += kPiece;
      continue;
    }
    ASSERT_EQ(admission, WriteAdmission::full) << "at byte " << at;
    ++refusals;
    ASSERT_TRUE(recorder->wait_until([&] { return recorder->drained > drained_before ||
                                                  recorder->exit.has_value(); },
                                     kCommandLimit))
        << "the queue never drained";
    ASSERT_FALSE(recorder->exit.has_value()) << describe(*recorder->exit);
  }
  ASSERT_TRUE(recorder->wait_for_exit(kCommandLimit));
  ASSERT_TRUE(recorder->exit->ok()) << describe(*recorder->exit);
  EXPECT_EQ(recorder->exit->value().exit_code, 0);
  EXPECT_GT(refusals, 0) << "the bound never held the writer back";
  ASSERT_EQ(recorder->out.size(), input.size());
  EXPECT_TRUE(recorder->out == input) << "the bytes came back changed";
}

// close_stdin(): on a v5 server `cat` sees the end of its input and exits; on v4 (Kubernetes
// before 1.29, this cluster's 1.20) nothing reaches the process, only later writes are refused,
// and the command runs until it is cancelled.
TEST(ExecStreamOnCluster, CloseStdinEndsInputOnV5AndOnlyRefusesWritesOnV4) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto request = in_test_pod(*pod, {"cat"});
  request.with_stdin = true;
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod->endpoint, request, recorder->exec_callbacks());
  ASSERT_EQ(stream->write_stdin("abc\n"), WriteAdmission::queued);
  stream->close_stdin();
  EXPECT_EQ(stream->write_stdin("more"), WriteAdmission::ended);
  ASSERT_TRUE(recorder->wait_until([&] { return recorder->out == "abc\n" || recorder->exit; },
                                   kCommandLimit));
  ASSERT_TRUE(recorder->protocol.has_value());

  if (*recorder->protocol == ChannelProtocol::v5) {
    ASSERT_TRUE(recorder->wait_for_exit(kCommandLimit)) << "cat did not see the end of stdin";
    ASSERT_TRUE(recorder->exit->ok()) << describe(*recorder->exit);
    EXPECT_EQ(recorder->exit->value().exit_code, 0);
    EXPECT_EQ(recorder->out, "abc\n");
    return;
  }
  EXPECT_FALSE(recorder->wait_for_exit(2s)) << "v4 has no close signal, yet cat ended: "
                                            << describe(*recorder->exit);
  EXPECT_EQ(recorder->out, "abc\n");
  stream->cancel();
  ASSERT_TRUE(recorder->wait_for_exit(10s));
  ASSERT_FALSE(recorder->exit->ok());
  EXPECT_EQ(recorder->exit->error().kind, ApiErrorKind::cancelled);
}

// What the node reports is up to its runtime. dockershim: the runtime's error on stdout ("OCI
// runtime exec failed: ... exec: \"no-such-command-vc\": executable file not found in $PATH")
// and exit code 126; a shell would say 127. Either way an ExecExit, not a stream failure.
TEST(ExecStreamOnCluster, ACommandThatDoesNotExistFailsAsTheServerSays) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto run_result = run(loop, pod->endpoint, in_test_pod(*pod, {"no-such-command-vc"}));
  ASSERT_TRUE(run_result->exit.has_value());
  const auto& result = *run_result->exit;
  const std::string said = run_result->out + run_result->err;
  RecordProperty("exec_result", describe(result) + "; output: " + said);
  ASSERT_TRUE(result.ok()) << describe(result);
  ASSERT_TRUE(result.value().exit_code.has_value()) << describe(result);
  EXPECT_TRUE(*result.value().exit_code == 126 || *result.value().exit_code == 127)
      << describe(result);
  EXPECT_EQ(result.value().reason, "NonZeroExitCode");
  EXPECT_NE(said.find("\"no-such-command-vc\""), std::string::npos) << said;
  EXPECT_NE(said.find("not found"), std::string::npos) << said;
}

TEST(ExecStreamOnCluster, APodThatDoesNotExistIsNotFound) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto request = in_test_pod(*pod, {"true"});
  request.pod = "no-such-pod";
  auto run_result = run(loop, pod->endpoint, request);
  ASSERT_TRUE(run_result->exit.has_value());
  const auto& result = *run_result->exit;
  ASSERT_FALSE(result.ok()) << describe(result);
  EXPECT_EQ(result.error().kind, ApiErrorKind::not_found);
  EXPECT_EQ(result.error().http_status, 404);
  EXPECT_EQ(result.error().reason, "NotFound");
  EXPECT_EQ(result.error().message,
            "Cannot run a command in pod no-such-pod (container computer) of namespace " +
                pod->namespace_name + ": pods \"no-such-pod\" not found.");
}

TEST(ExecStreamOnCluster, AContainerThatIsNotInThePodIsRefused) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto request = in_test_pod(*pod, {"true"});
  request.container = "desktop";
  auto run_result = run(loop, pod->endpoint, request);
  ASSERT_TRUE(run_result->exit.has_value());
  const auto& result = *run_result->exit;
  ASSERT_FALSE(result.ok()) << describe(result);
  EXPECT_EQ(result.error().kind, ApiErrorKind::invalid);
  EXPECT_EQ(result.error().http_status, 400);
  EXPECT_EQ(result.error().message,
            "Cannot run a command in pod streams (container desktop) of namespace " +
                pod->namespace_name + ": container desktop is not valid for pod streams.");
}

// The process's list, from a second exec.
std::string processes(ApiLoop& loop, const TestPod& pod) {
  auto listing = run(loop, pod.endpoint, in_test_pod(pod, {"ps", "-o", "pid,args"}));
  return listing->out;
}

// cancel() ends the stream at once. The API cannot kill the process: this test checks that it
// still runs (what exec_stream.h documents), then kills it with a second exec.
TEST(ExecStreamOnCluster, CancelEndsTheStreamPromptlyButNotTheProcess) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod->endpoint, in_test_pod(*pod, {"sleep", "987"}),
                                  recorder->exec_callbacks());
  ASSERT_TRUE(recorder->wait_until([&] { return recorder->protocol.has_value(); }, kCommandLimit));
  // The process starts right after the upgrade; wait until it is listed.
  for (int attempt = 0;
       attempt < 50 && processes(loop, *pod).find("sleep 987") == std::string::npos; ++attempt) {
    std::this_thread::sleep_for(100ms);
  }
  const auto cancelled_at = std::chrono::steady_clock::now();
  stream->cancel();
  ASSERT_TRUE(recorder->wait_for_exit(5s));
  EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, 1s);
  ASSERT_FALSE(recorder->exit->ok());
  EXPECT_EQ(recorder->exit->error().kind, ApiErrorKind::cancelled);
  EXPECT_EQ(recorder->exit->error().message,
            "Cannot run a command in pod streams (container computer) of namespace " +
                pod->namespace_name + ": it was cancelled.");

  std::this_thread::sleep_for(1s);  // time for the node to act on the closed connection, if it did
  EXPECT_NE(processes(loop, *pod).find("sleep 987"), std::string::npos)
      << "the process ended with the stream: exec_stream.h says it does not";
  auto kill = run(loop, pod->endpoint,
                  in_test_pod(*pod, {"sh", "-c", "kill $(ps -o pid,args | awk '$2 == \"sleep\" && "
                                                 "$3 == \"987\" {print $1}')"}));
  ASSERT_TRUE(kill->exit->ok()) << describe(*kill->exit);
  EXPECT_EQ(kill->exit->value().exit_code, 0) << kill->err;
  EXPECT_EQ(processes(loop, *pod).find("sleep 987"), std::string::npos);
}

TEST(ExecStreamOnCluster, CancelBeforeTheStreamIsOpen) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod->endpoint, in_test_pod(*pod, {"true"}),
                                  recorder->exec_callbacks());
  stream->cancel();
  ASSERT_TRUE(recorder->wait_for_exit(5s));
  ASSERT_FALSE(recorder->exit->ok());
  EXPECT_EQ(recorder->exit->error().kind, ApiErrorKind::cancelled);
  EXPECT_FALSE(recorder->protocol.has_value());
  std::this_thread::sleep_for(200ms);  // nothing may follow on_exit
  std::lock_guard lock(recorder->mutex);
  EXPECT_EQ(recorder->ends, 1);
  EXPECT_FALSE(recorder->protocol.has_value());
}

// Output waits while paused (the command's status with it: it comes after the output), and
// arrives on resume.
TEST(ExecStreamOnCluster, PausedOutputWaitsForResume) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod->endpoint, in_test_pod(*pod, {"echo", "later"}),
                                  recorder->exec_callbacks());
  stream->pause_output();
  ASSERT_TRUE(recorder->wait_until([&] { return recorder->protocol.has_value(); }, kCommandLimit));
  EXPECT_FALSE(recorder->wait_for_exit(2s)) << "the output was read while paused";
  EXPECT_EQ(recorder->output(), "");
  stream->resume_output();
  ASSERT_TRUE(recorder->wait_for_exit(kCommandLimit));
  ASSERT_TRUE(recorder->exit->ok()) << describe(*recorder->exit);
  EXPECT_EQ(recorder->exit->value().exit_code, 0);
  EXPECT_EQ(recorder->out, "later\n");
}

TEST(ExecStreamOnCluster, ATtyTakesItsSizeFromResize) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto request = in_test_pod(*pod, {"sh", "-c", "sleep 1; stty size"});
  request.with_stdin = true;
  request.tty = true;
  request.with_stderr = false;  // a TTY has one output
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod->endpoint, request, recorder->exec_callbacks());
  stream->resize(100, 40);
  ASSERT_TRUE(recorder->wait_for_exit(kCommandLimit));
  ASSERT_TRUE(recorder->exit->ok()) << describe(*recorder->exit);
  EXPECT_EQ(recorder->exit->value().exit_code, 0);
  EXPECT_EQ(recorder->out, "40 100\r\n");  // rows columns, with the TTY's line ending
}

// With an idle timeout of 1 s a silent 3-second command lives on pongs: the ping at 0.5 s of
// silence is answered, again and again.
TEST(ExecStreamOnCluster, PingsKeepASilentCommandAliveWithinTheIdleTimeout) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto request = in_test_pod(*pod, {"sleep", "3"});
  request.idle_timeout = 1s;
  auto run_result = run(loop, pod->endpoint, request);
  ASSERT_TRUE(run_result->exit.has_value());
  ASSERT_TRUE(run_result->exit->ok()) << describe(*run_result->exit);
  EXPECT_EQ(run_result->exit->value().exit_code, 0);
}

TEST(ExecStreamOnCluster, RefusedCredentialsAreUnauthorizedAndInvalidated) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  ApiEndpoint wrong = pod->endpoint;
  auto credentials = std::make_shared<FixedTokenCredentials>("not-the-token");
  wrong.credentials = credentials;
  auto run_result = run(loop, wrong, in_test_pod(*pod, {"true"}));
  ASSERT_TRUE(run_result->exit.has_value());
  const auto& result = *run_result->exit;
  ASSERT_FALSE(result.ok()) << describe(result);
  EXPECT_EQ(result.error().kind, ApiErrorKind::unauthorized);
  EXPECT_EQ(result.error().http_status, 401);
  EXPECT_EQ(result.error().message.rfind(
                "Cannot run a command in pod streams (container computer) of namespace " +
                    pod->namespace_name + ": the API server did not accept the credentials of ",
                0),
            0u)
      << result.error().message;
  EXPECT_EQ(credentials->invalidations, 1);
}

}  // namespace
}  // namespace vc::kubernetes::testing
