// stream_request_test.cpp — exec and port-forward requests without a cluster: their targets
// (escaped path and query), the subjects their failures start with, requests refused before
// anything is sent, and a server that is not there.
// Thread rule: the tests' thread waits for callbacks that run on an ApiLoop's thread.
#include <future>

#include <gtest/gtest.h>

#include "exec_stream.h"
#include "port_forward_stream.h"

namespace vc::kubernetes {
namespace {

using namespace std::chrono_literals;

TEST(EscapeUrlComponent, KeepsUnreservedBytesOnly) {
  EXPECT_EQ(escape_url_component("abcXYZ019-._~"), "abcXYZ019-._~");
  EXPECT_EQ(escape_url_component("a b&c=d/e?f#%+"), "a%20b%26c%3Dd%2Fe%3Ff%23%25%2B");
  EXPECT_EQ(escape_url_component(std::string("\x00\xff\n", 3)), "%00%FF%0A");
  EXPECT_EQ(escape_url_component("é"), "%C3%A9");
}

TEST(ExecTarget, EveryArgumentIsACommandParameterInOrder) {
  ExecRequest request;
  request.namespace_name = "vc-test-1";
  request.pod = "computer-a";
  request.container = "computer";
  request.command = {"sh", "-c", "echo hello; exit 3"};
  request.with_stdin = true;
  EXPECT_EQ(exec_target(request),
            "/api/v1/namespaces/vc-test-1/pods/computer-a/exec?command=sh&command=-c&"
            "command=echo%20hello%3B%20exit%203&container=computer&stdin=true&stdout=true&"
            "stderr=true&tty=false");
}

TEST(ExecTarget, NoContainerParameterWithoutAContainer) {
  ExecRequest request;
  request.namespace_name = "n";
  request.pod = "p";
  request.command = {"true"};
  request.with_stdout = false;
  request.with_stderr = false;
  request.tty = true;
  EXPECT_EQ(exec_target(request),
            "/api/v1/namespaces/n/pods/p/exec?command=true&stdin=false&stdout=false&"
            "stderr=false&tty=true");
}

TEST(ExecSubject, NamesPodContainerAndNamespace) {
  ExecRequest request;
  request.namespace_name = "ns";
  request.pod = "x";
  request.container = "computer";
  EXPECT_EQ(exec_subject(request),
            "Cannot run a command in pod x (container computer) of namespace ns");
  request.container.clear();
  EXPECT_EQ(exec_subject(request), "Cannot run a command in pod x of namespace ns");
}

TEST(PortForwardTarget, OnePortParameter) {
  PortForwardRequest request;
  request.namespace_name = "vc-test-1";
  request.pod = "computer-a";
  request.port = 6080;
  EXPECT_EQ(port_forward_target(request),
            "/api/v1/namespaces/vc-test-1/pods/computer-a/portforward?ports=6080");
  EXPECT_EQ(port_forward_subject(request),
            "Cannot forward port 6080 of pod computer-a in namespace vc-test-1");
}

// No credentials: these tests never reach a server.
class FixedCredentials : public CredentialSource {
 public:
  ConfigExpected<Credentials> current() override { return Credentials{}; }
  void invalidate() override {}
  std::string describe() const override { return "no credentials"; }
};

ApiEndpoint endpoint_at(const std::string& server) {
  ApiEndpoint endpoint;
  endpoint.server = server;
  endpoint.credentials = std::make_shared<FixedCredentials>();
  endpoint.origin = "the test's endpoint";
  return endpoint;
}

// Starts an exec and waits for its on_exit (from the loop thread).
ApiExpected<ExecExit> run_exec(ApiLoop& loop, const ApiEndpoint& endpoint, ExecRequest request) {
  std::promise<ApiExpected<ExecExit>> exited;
  ExecCallbacks callbacks;
  callbacks.on_exit = [&exited](ApiExpected<ExecExit> result) { exited.set_value(result); };
  auto stream = ExecStream::start(loop, endpoint, std::move(request), std::move(callbacks));
  auto future = exited.get_future();
  EXPECT_EQ(future.wait_for(30s), std::future_status::ready);
  return future.get();
}

TEST(ExecStreamWithoutCluster, ARequestWithoutCommandFailsBeforeConnecting) {
  ApiLoop loop;
  ExecRequest request;
  request.namespace_name = "ns";
  request.pod = "x";
  request.container = "computer";
  // Nothing listens on port 1: a request that connected would fail as unreachable instead.
  const auto result = run_exec(loop, endpoint_at("https://127.0.0.1:1"), request);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ApiErrorKind::invalid);
  EXPECT_EQ(result.error().message,
            "Cannot run a command in pod x (container computer) of namespace ns: no command was "
            "given.");
}

TEST(ExecStreamWithoutCluster, AServerThatIsNotThereIsUnreachable) {
  ApiLoop loop;
  ExecRequest request;
  request.namespace_name = "ns";
  request.pod = "x";
  request.command = {"true"};
  const auto result = run_exec(loop, endpoint_at("https://127.0.0.1:1"), request);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ApiErrorKind::unreachable) << result.error().message;
  EXPECT_EQ(result.error().message.rfind("Cannot run a command in pod x of namespace ns: cannot "
                                         "reach the Kubernetes API at https://127.0.0.1:1: ",
                                         0),
            0u)
      << result.error().message;
}

TEST(ExecStreamWithoutCluster, WritesAfterTheEndAreRefused) {
  ApiLoop loop;
  ExecRequest request;
  request.namespace_name = "ns";
  request.pod = "x";
  request.command = {"cat"};
  request.with_stdin = true;
  std::promise<void> exited;
  ExecCallbacks callbacks;
  callbacks.on_exit = [&exited](ApiExpected<ExecExit>) { exited.set_value(); };
  auto stream = ExecStream::start(loop, endpoint_at("https://127.0.0.1:1"), request, callbacks);
  ASSERT_EQ(exited.get_future().wait_for(30s), std::future_status::ready);
  EXPECT_EQ(stream->write_stdin("late"), WriteAdmission::ended);
}

TEST(ExecStreamWithoutCluster, StdinIsRefusedWithoutStdinAndBeyondTheBound) {
  ApiLoop loop;
  ExecRequest request;
  request.namespace_name = "ns";
  request.pod = "x";
  request.command = {"cat"};
  // The stream ends unreachable; writes are judged before that, at once.
  ExecCallbacks callbacks;
  std::promise<void> exited;
  callbacks.on_exit = [&exited](ApiExpected<ExecExit>) { exited.set_value(); };
  const ApiEndpoint nowhere = endpoint_at("https://127.0.0.1:1");
  auto without_stdin = ExecStream::start(loop, nowhere, request, callbacks);
  EXPECT_EQ(without_stdin->write_stdin("x"), WriteAdmission::ended);
  ASSERT_EQ(exited.get_future().wait_for(30s), std::future_status::ready);

  request.with_stdin = true;
  request.max_queued_stdin_bytes = 1000;
  std::promise<void> exited_too;
  callbacks.on_exit = [&exited_too](ApiExpected<ExecExit>) { exited_too.set_value(); };
  auto bounded = ExecStream::start(loop, nowhere, request, callbacks);
  EXPECT_EQ(bounded->write_stdin(std::string(2000, 'x')), WriteAdmission::too_big);
  ASSERT_EQ(exited_too.get_future().wait_for(30s), std::future_status::ready);
}

TEST(PortForwardStreamWithoutCluster, PortZeroFailsBeforeConnecting) {
  ApiLoop loop;
  PortForwardRequest request;
  request.namespace_name = "ns";
  request.pod = "x";
  std::promise<ApiExpected<void>> closed;
  PortForwardCallbacks callbacks;
  callbacks.on_close = [&closed](ApiExpected<void> result) { closed.set_value(result); };
  auto stream =
      PortForwardStream::start(loop, endpoint_at("https://127.0.0.1:1"), request, callbacks);
  auto future = closed.get_future();
  ASSERT_EQ(future.wait_for(30s), std::future_status::ready);
  const auto result = future.get();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ApiErrorKind::invalid);
  EXPECT_EQ(result.error().message,
            "Cannot forward port 0 of pod x in namespace ns: port 0 is not a port.");
}

}  // namespace
}  // namespace vc::kubernetes
