// desktop_view_proxy_cluster_test.cpp — DesktopViewProxy against the real cluster (label
// "kubernetes"): a file served by busybox httpd on port 6080 of a pod, fetched through the proxy
// by an HTTP client on this machine, byte for byte; a port where nothing listens and a pod that
// does not exist, as the log says them.
//
// The suite makes its own namespace vc-test-view-<random> with one pod and deletes it at its
// end. The kubeconfig, the image and skipping are test_cluster.h's.
//
// Thread rule: the test's thread makes the pod, runs the HTTP client and waits; the proxy lives
// on its ApiLoop.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>

#include "desktop_view_proxy.h"
#include "exec_stream.h"
#include "log_recorder.h"
#include "loopback_client.h"
#include "stream_recorder.h"
#include "test_cluster.h"

// Named apart from test_cluster.cpp's helpers, which a unity build puts beside these.
namespace vc::kubernetes::testing::desktop_view_cluster {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr auto kLimit = 60s;
constexpr std::uint16_t kViewPort = 6080;
constexpr std::uint16_t kClosedPort = 7001;
constexpr const char* kPodName = "desktop";
constexpr const char* kFilePath = "/numbers.txt";
// The file httpd serves: `seq 1 kLastNumber`, some hundreds of KiB.
constexpr int kLastNumber = 60000;

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string expected_file() {
  std::string text;
  for (int number = 1; number <= kLastNumber; ++number) text += std::to_string(number) + "\n";
  return text;
}

std::string random_suffix() {
  std::random_device random;
  std::ostringstream text;
  text << std::hex << random() << random();
  return text.str().substr(0, 8);
}

void expect_status(const HttpAnswer& answer, int status, const std::string& what) {
  if (answer.status != status) {
    throw std::runtime_error(what + ": HTTP " + std::to_string(answer.status) + ": " +
                             answer.body.substr(0, 500));
  }
}

json view_pod_object() {
  // httpd in the foreground as the container's main process; no grace period, so that the
  // namespace's deletion need not wait for it.
  const std::string script = "mkdir -p /www && seq 1 " + std::to_string(kLastNumber) + " > /www" +
                             kFilePath + " && exec httpd -f -p " + std::to_string(kViewPort) +
                             " -h /www";
  return json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", kPodName}}},
      {"spec",
       {{"terminationGracePeriodSeconds", 0},
        {"automountServiceAccountToken", false},
        {"containers",
         json::array({{{"name", "computer"},
                       {"image", env_or("VC_TEST_BUSYBOX_IMAGE", "vc-test-busybox:latest")},
                       {"imagePullPolicy", "Never"},
                       {"command", json::array({"sh", "-c", script})}}})}}}};
}

// The suite's namespace and pod, made once and deleted at its end.
struct ViewPod {
  ApiEndpoint endpoint;
  std::string namespace_name;
  std::string skip_reason;
  std::string failure;  // making it failed: every test fails with this
};

ViewPod& view_pod() {
  static ViewPod pod;
  return pod;
}

void create_view_pod(ViewPod& pod) {
  const std::string pods = "/api/v1/namespaces/" + pod.namespace_name + "/pods";
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  for (;;) {
    const HttpAnswer answer =
        api_call(pod.endpoint, http::verb::post, pods, view_pod_object().dump());
    if (answer.status == 201) break;
    // The admission refuses pods until the namespace's default service account exists.
    const bool no_service_account_yet =
        answer.status == 403 && answer.body.find("serviceaccount") != std::string::npos;
    if (!no_service_account_yet || std::chrono::steady_clock::now() > deadline) {
      expect_status(answer, 201, "creating the pod " + std::string(kPodName));
    }
    std::this_thread::sleep_for(200ms);
  }
  std::string last_status;
  const auto running_deadline = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < running_deadline) {
    const HttpAnswer answer =
        api_call(pod.endpoint, http::verb::get, pods + "/" + std::string(kPodName));
    expect_status(answer, 200, "reading the pod " + std::string(kPodName));
    const json status = json::parse(answer.body, nullptr, false).value("status", json::object());
    last_status = status.dump().substr(0, 600);
    if (status.value("phase", "") == "Running") return;
    if (status.value("phase", "") == "Failed") break;
    std::this_thread::sleep_for(250ms);
  }
  throw std::runtime_error("The pod " + std::string(kPodName) +
                           " did not start running; its status: " + last_status);
}

// Waits until httpd listens in the pod (it starts with the pod, after writing the file).
void wait_for_httpd(const ViewPod& pod) {
  ApiLoop loop;
  ExecRequest request;
  request.namespace_name = pod.namespace_name;
  request.pod = kPodName;
  request.command = {"sh", "-c",
                     "for i in $(seq 100); do netstat -ltn | grep -q ':" +
                         std::to_string(kViewPort) + " ' && exit 0; sleep 0.1; done; exit 1"};
  auto recorder = StreamRecorder::make();
  auto stream = ExecStream::start(loop, pod.endpoint, request, recorder->exec_callbacks());
  if (!recorder->wait_for_exit(kLimit)) throw std::runtime_error("waiting for httpd hung");
  if (!recorder->exit->ok()) throw std::runtime_error(recorder->exit->error().message);
  if (recorder->exit->value().exit_code != 0) {
    throw std::runtime_error("httpd does not listen on port 6080 of the pod");
  }
}

class DesktopViewProxyOnCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ViewPod& pod = view_pod();
    const std::string path =
        env_or("VC_TEST_KUBECONFIG", "/var/lib/mcp-virtual-computer-k8s/kubeconfig");
    if (!std::ifstream(path)) {
      pod.skip_reason = "no kubeconfig at " + path + " (VC_TEST_KUBECONFIG)";
      return;
    }
    try {
      auto endpoint = endpoint_from_kubeconfig(path);
      if (!endpoint) throw std::runtime_error(endpoint.error().message);
      pod.endpoint = std::move(endpoint).value();
      const std::string name = "vc-test-view-" + random_suffix();
      const json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
      expect_status(api_call(pod.endpoint, http::verb::post, "/api/v1/namespaces", ns.dump()),
                    201, "creating the namespace " + name);
      pod.namespace_name = name;
      create_view_pod(pod);
      wait_for_httpd(pod);
    } catch (const std::exception& error) {
      pod.failure = error.what();
    }
  }

  static void TearDownTestSuite() {
    ViewPod& pod = view_pod();
    if (pod.namespace_name.empty()) return;
    try {
      const HttpAnswer answer = api_call(pod.endpoint, http::verb::delete_,
                                         "/api/v1/namespaces/" + pod.namespace_name);
      EXPECT_TRUE(answer.status == 200 || answer.status == 202)
          << "deleting the namespace " << pod.namespace_name << ": HTTP " << answer.status
          << ": " << answer.body.substr(0, 300);
    } catch (const std::exception& error) {
      ADD_FAILURE() << "deleting the namespace " << pod.namespace_name << ": " << error.what();
    }
    pod.namespace_name.clear();
  }

  void SetUp() override {
    const ViewPod& pod = view_pod();
    if (!pod.skip_reason.empty()) {
      if (cluster_required()) FAIL() << "VC_REQUIRE_ENGINES names kubernetes: " << pod.skip_reason;
      GTEST_SKIP() << pod.skip_reason;
    }
    ASSERT_TRUE(pod.failure.empty()) << pod.failure;
  }

  // A proxy to `port` of the suite's pod.
  std::unique_ptr<DesktopViewProxy> start_proxy(std::uint16_t port) {
    const ViewPod& pod = view_pod();
    PortForwardRequest request;
    request.namespace_name = pod.namespace_name;
    request.port = port;
    DesktopViewProxyOptions options;
    options.subject = "the desktop of computer view-test";
    auto started = DesktopViewProxy::start(loop_, kPodName,
                                           port_forward_opener(loop_, pod.endpoint, request),
                                           options, log_.log());
    EXPECT_TRUE(started.ok()) << started.error().message;
    if (!started) return nullptr;
    return std::move(started).value();
  }

  LogRecorder log_;
  ApiLoop loop_;
};

struct HttpGet {
  std::string failure;  // empty when an answer came
  int status = 0;
  std::string body;
};

// GET `target` from 127.0.0.1:`port` with Beast, the whole exchange within kLimit.
HttpGet http_get(std::uint16_t port, const std::string& target) {
  asio::io_context context;
  beast::tcp_stream stream(context);
  stream.expires_after(kLimit);
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  request.set(http::field::connection, "close");
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(16 * 1024 * 1024);
  HttpGet result;
  auto fail = [&](const char* step, const beast::error_code& error) {
    result.failure = std::string(step) + ": " + error.message();
  };
  stream.async_connect({asio::ip::address_v4::loopback(), port}, [&](beast::error_code error) {
    if (error) return fail("connecting", error);
    http::async_write(stream, request, [&](beast::error_code written, std::size_t) {
      if (written) return fail("sending the request", written);
      http::async_read(stream, buffer, parser, [&](beast::error_code read, std::size_t) {
        if (read) return fail("reading the answer", read);
        result.status = static_cast<int>(parser.get().result_int());
        result.body = parser.get().body();
      });
    });
  });
  context.run();
  return result;
}

TEST_F(DesktopViewProxyOnCluster, AFileComesThroughWhole) {
  auto proxy = start_proxy(kViewPort);
  ASSERT_TRUE(proxy);
  const std::string expected = expected_file();
  ASSERT_GT(expected.size(), 300u * 1024);
  // Twice: every connection has a stream of its own.
  for (int attempt = 1; attempt <= 2; ++attempt) {
    const HttpGet answer = http_get(proxy->port(), kFilePath);
    ASSERT_EQ(answer.failure, "") << "attempt " << attempt;
    EXPECT_EQ(answer.status, 200) << answer.body.substr(0, 300);
    EXPECT_EQ(answer.body.size(), expected.size());
    EXPECT_TRUE(answer.body == expected) << "the file came changed, attempt " << attempt;
  }
  const HttpGet missing = http_get(proxy->port(), "/no-such-file");
  ASSERT_EQ(missing.failure, "");
  EXPECT_EQ(missing.status, 404);

  // httpd closes each connection after its answer: the relays end with it.
  EXPECT_TRUE(([&] {
    const auto deadline = std::chrono::steady_clock::now() + kLimit;
    while (proxy->open_connections() != 0) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
    return true;
  })()) << proxy->open_connections() << " connections still open";
  EXPECT_TRUE(log_.lines_with("").empty()) << log_.lines_with("").front();
  proxy->stop();
}

// Nothing listens on the pod's port: the browser's connection closes, the log says why in the
// kubelet's words.
TEST_F(DesktopViewProxyOnCluster, APortWhereNothingListensClosesTheConnectionAndIsLogged) {
  auto proxy = start_proxy(kClosedPort);
  ASSERT_TRUE(proxy);
  LoopbackClient browser(proxy->port());
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  browser.begin_send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_TRUE(browser.receive_until_end(kLimit));
  EXPECT_EQ(browser.received, "");
  const std::string subject = "Cannot forward port " + std::to_string(kClosedPort) +
                              " of pod desktop in namespace " + view_pod().namespace_name + ": ";
  const auto lines = log_.lines_with(subject);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines.front().rfind("A connection to the desktop of computer view-test at 127.0.0.1:" +
                                    std::to_string(proxy->port()) + " was closed: " + subject,
                                0),
            0u)
      << lines.front();
  EXPECT_NE(lines.front().find("refused"), std::string::npos) << lines.front();
  RecordProperty("log_line", lines.front());
}

// Retargeted to a pod that does not exist: later connections close, and the log says so.
TEST_F(DesktopViewProxyOnCluster, RetargetedToAPodThatDoesNotExist) {
  auto proxy = start_proxy(kViewPort);
  ASSERT_TRUE(proxy);
  proxy->retarget("no-such-pod");
  LoopbackClient browser(proxy->port());
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  EXPECT_TRUE(browser.receive_until_end(kLimit));
  EXPECT_EQ(browser.received, "");
  const auto lines = log_.lines_with("pods \"no-such-pod\" not found.");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines.front().find("Cannot forward port 6080 of pod no-such-pod in namespace " +
                               view_pod().namespace_name),
            std::string::npos)
      << lines.front();
}

}  // namespace
}  // namespace vc::kubernetes::testing::desktop_view_cluster
