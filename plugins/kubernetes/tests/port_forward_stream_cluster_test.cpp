// port_forward_stream_cluster_test.cpp — PortForwardStream against the real cluster (label
// "kubernetes"): bytes through an echo server in the pod, a port where nothing listens, a pod
// that does not exist.
// Thread rule: the test's thread starts streams and waits; callbacks run on the ApiLoop.
#include <gtest/gtest.h>

#include "exec_stream.h"
#include "port_forward_stream.h"
#include "stream_recorder.h"
#include "test_cluster.h"

namespace vc::kubernetes::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kLimit = 60s;

PortForwardRequest to_test_pod(const TestPod& pod, std::uint16_t port) {
  PortForwardRequest request;
  request.namespace_name = pod.namespace_name;
  request.pod = pod.pod;
  request.port = port;
  return request;
}

std::string describe(const ApiExpected<void>& result) {
  if (result) return "success";
  return std::string("error ") + api_error_kind_name(result.error().kind) + ": " +
         result.error().message;
}

// Waits until the pod's echo and greeting servers listen (they start with the pod, in the
// background).
void wait_for_servers(const TestPod& pod) {
  ApiLoop loop;
  ExecRequest request;
  request.namespace_name = pod.namespace_name;
  request.pod = pod.pod;
  request.container = pod.container;
  request.command = {"sh", "-c",
                     "for i in $(seq 100); do n=$(netstat -ltn | grep -cE ':(" +
                         std::to_string(TestPod::kEchoPort) + "|" +
                         std::to_string(TestPod::kGreetingPort) +
                         ") '); [ \"$n\" = 2 ] && exit 0; sleep 0.1; done; exit 1"};
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod.endpoint, request, recorder->exec_callbacks());
  ASSERT_TRUE(recorder->wait_for_exit(kLimit));
  ASSERT_TRUE(recorder->exit->ok()) << recorder->exit->error().message;
  ASSERT_EQ(recorder->exit->value().exit_code, 0) << "the pod's servers do not listen";
}

TEST(PortForwardStreamOnCluster, BytesComeBackThroughAnEchoServerInThePod) {
  VC_TEST_POD_OR_SKIP(pod);
  ASSERT_NO_FATAL_FAILURE(wait_for_servers(*pod));
  constexpr std::size_t kTotal = 256 * 1024;
  std::string input(kTotal, '\0');
  for (std::size_t i = 0; i < kTotal; ++i) input[i] = static_cast<char>((i * 13 + i / 512) & 0xff);

  ApiLoop loop;
  auto recorder = StreamRecorder::make();
  auto stream = PortForwardStream::start(loop, pod->endpoint, to_test_pod(*pod, TestPod::kEchoPort),
                                         recorder->port_forward_callbacks());
  // Written in pieces, as a client's socket would deliver them.
  for (std::size_t at = 0; at < kTotal; at += 16 * 1024) {
    ASSERT_EQ(stream->write(input.substr(at, 16 * 1024)), WriteAdmission::queued);
  }
  ASSERT_TRUE(recorder->wait_until(
      [&] { return recorder->out.size() >= kTotal || recorder->closed.has_value(); }, kLimit))
      << "only " << recorder->output().size() << " bytes came back";
  ASSERT_FALSE(recorder->closed.has_value()) << describe(*recorder->closed);
  EXPECT_TRUE(recorder->opened);
  ASSERT_EQ(recorder->out.size(), kTotal);
  EXPECT_TRUE(recorder->out == input) << "the bytes came back changed";

  stream->close();
  ASSERT_TRUE(recorder->wait_for_close(kLimit));
  EXPECT_TRUE(recorder->closed->ok()) << describe(*recorder->closed);
  EXPECT_EQ(recorder->ends, 1);
  EXPECT_EQ(stream->write("late"), WriteAdmission::ended);
}

// The pod's side closing its connection ends the stream, with success, after its bytes.
TEST(PortForwardStreamOnCluster, ThePodsSideClosingEndsTheStream) {
  VC_TEST_POD_OR_SKIP(pod);
  ASSERT_NO_FATAL_FAILURE(wait_for_servers(*pod));
  ApiLoop loop;
  auto recorder = StreamRecorder::make();
  auto stream = PortForwardStream::start(loop, pod->endpoint,
                                         to_test_pod(*pod, TestPod::kGreetingPort),
                                         recorder->port_forward_callbacks());
  ASSERT_TRUE(recorder->wait_for_close(kLimit));
  EXPECT_TRUE(recorder->closed->ok()) << describe(*recorder->closed);
  EXPECT_EQ(recorder->out, "hello\n");
  EXPECT_EQ(recorder->ends, 1);
}

TEST(PortForwardStreamOnCluster, APortWithNothingListeningEndsWithTheServersError) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto recorder = StreamRecorder::make();
  auto stream = PortForwardStream::start(loop, pod->endpoint, to_test_pod(*pod, 7001),
                                         recorder->port_forward_callbacks());
  stream->write("hello?");
  ASSERT_TRUE(recorder->wait_for_close(kLimit));
  const auto& result = *recorder->closed;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ApiErrorKind::server) << describe(result);
  const std::string subject =
      "Cannot forward port 7001 of pod streams in namespace " + pod->namespace_name + ": ";
  EXPECT_EQ(result.error().message.rfind(subject, 0), 0u) << result.error().message;
  // The kubelet's words: "error forwarding port 7001 to pod <id>, uid : <why>".
  EXPECT_NE(result.error().message.find("error forwarding port 7001 to pod"), std::string::npos)
      << result.error().message;
  // socat's words on dockershim, the CRI runtime's on others: both say the connection was refused.
  EXPECT_NE(result.error().message.find("refused"), std::string::npos) << result.error().message;
  EXPECT_TRUE(recorder->out.empty());
  RecordProperty("message", result.error().message);
}

TEST(PortForwardStreamOnCluster, APodThatDoesNotExistIsNotFound) {
  VC_TEST_POD_OR_SKIP(pod);
  ApiLoop loop;
  auto recorder = StreamRecorder::make();
  auto request = to_test_pod(*pod, 6080);
  request.pod = "no-such-pod";
  auto stream = PortForwardStream::start(loop, pod->endpoint, request,
                                         recorder->port_forward_callbacks());
  ASSERT_TRUE(recorder->wait_for_close(kLimit));
  const auto& result = *recorder->closed;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ApiErrorKind::not_found);
  EXPECT_EQ(result.error().message, "Cannot forward port 6080 of pod no-such-pod in namespace " +
                                        pod->namespace_name + ": pods \"no-such-pod\" not found.");
  EXPECT_FALSE(recorder->opened);
}

}  // namespace
}  // namespace vc::kubernetes::testing
