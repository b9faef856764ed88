// test_cluster.cpp — the kubeconfig read with yaml-cpp, synchronous HTTPS calls with Beast, and
// the namespace and pod of one test process. Thread rule: the test's main thread.
#include "test_cluster.h"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api_connection.h"

namespace vc::kubernetes::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using json = nlohmann::json;

constexpr const char* kDefaultKubeconfig = "/var/lib/mcp-virtual-computer-k8s/kubeconfig";
constexpr const char* kDefaultBusyboxImage = "vc-test-busybox:latest";

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

ConfigError kubeconfig_error(const std::string& path, const std::string& why) {
  return ConfigError{"The kubeconfig " + path + ": " + why + "."};
}

// The entry named `name` of a kubeconfig list (clusters, users, contexts), or a null node.
YAML::Node named_entry(const YAML::Node& list, const std::string& name) {
  for (const auto& entry : list) {
    if (entry["name"] && entry["name"].as<std::string>() == name) return entry;
  }
  return YAML::Node();
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return "";
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string base64_decode(const std::string& text) {
  std::string decoded(text.size(), '\0');
  const int length = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                     reinterpret_cast<const unsigned char*>(text.data()),
                                     static_cast<int>(text.size()));
  if (length < 0) return "";
  decoded.resize(static_cast<std::size_t>(length));
  while (!decoded.empty() && decoded.back() == '\0') decoded.pop_back();  // the padding's zeros
  return decoded;
}

std::string random_suffix() {
  std::random_device random;
  std::ostringstream text;
  text << std::hex << random() << random();
  return text.str().substr(0, 10);
}

json parse_or_throw(const HttpAnswer& answer, const std::string& what) {
  auto parsed = json::parse(answer.body, nullptr, false);
  if (parsed.is_discarded()) {
    throw std::runtime_error(what + ": HTTP " + std::to_string(answer.status) + ", not JSON: " +
                             answer.body.substr(0, 300));
  }
  return parsed;
}

void expect_status(const HttpAnswer& answer, int status, const std::string& what) {
  if (answer.status != status) {
    throw std::runtime_error(what + ": HTTP " + std::to_string(answer.status) + ": " +
                             answer.body.substr(0, 500));
  }
}

json test_pod_object(const TestPod& pod) {
  // The echo and greeting servers first, then a sleep as the container's main process. No
  // grace period: the namespace's deletion at the end need not wait for it.
  const std::string script = "nc -ll -p " + std::to_string(TestPod::kEchoPort) + " -e cat & " +
                             "nc -ll -p " + std::to_string(TestPod::kGreetingPort) +
                             " -e echo hello & exec sleep 3600";
  return json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", pod.pod}}},
      {"spec",
       {{"terminationGracePeriodSeconds", 0},
        {"automountServiceAccountToken", false},
        {"containers",
         json::array({{{"name", pod.container},
                       {"image", env_or("VC_TEST_BUSYBOX_IMAGE", kDefaultBusyboxImage)},
                       {"imagePullPolicy", "Never"},
                       {"command", json::array({"sh", "-c", script})}}})}}}};
}

// Creates the pod, retrying while the namespace's default service account does not exist yet
// (the admission refuses pods until the controller has made it).
void create_pod(const TestPod& pod) {
  const std::string pods = "/api/v1/namespaces/" + pod.namespace_name + "/pods";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    const HttpAnswer answer =
        api_call(pod.endpoint, http::verb::post, pods, test_pod_object(pod).dump());
    if (answer.status == 201) return;
    const bool no_service_account_yet =
        answer.status == 403 && answer.body.find("serviceaccount") != std::string::npos;
    if (!no_service_account_yet || std::chrono::steady_clock::now() > deadline) {
      expect_status(answer, 201, "creating the test pod");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

void wait_until_running(const TestPod& pod) {
  const std::string target = "/api/v1/namespaces/" + pod.namespace_name + "/pods/" + pod.pod;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    const HttpAnswer answer = api_call(pod.endpoint, http::verb::get, target);
    expect_status(answer, 200, "reading the test pod");
    const json object = parse_or_throw(answer, "reading the test pod");
    const json status = object.value("status", json::object());
    last = status.dump().substr(0, 600);
    if (status.value("phase", "") == "Running") return;
    if (status.value("phase", "") == "Failed") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  throw std::runtime_error("The test pod did not start running; its status: " + last);
}

class TestPodHolder {
 public:
  const TestPod* get(std::string* skip_reason) {
    if (pod_) return pod_.get();
    if (!skip_reason_.empty()) {
      *skip_reason = skip_reason_;
      return nullptr;
    }
    const std::string path = env_or("VC_TEST_KUBECONFIG", kDefaultKubeconfig);
    if (!std::ifstream(path)) {
      skip_reason_ = "no kubeconfig at " + path + " (VC_TEST_KUBECONFIG); start the local "
                     "cluster with scripts/engines/kubernetes-up.sh";
      *skip_reason = skip_reason_;
      return nullptr;
    }
    auto endpoint = endpoint_from_kubeconfig(path);
    if (!endpoint) throw std::runtime_error(endpoint.error().message);
    auto pod = std::make_unique<TestPod>();
    pod->endpoint = std::move(endpoint).value();
    pod->namespace_name = "vc-test-" + random_suffix();

    const HttpAnswer version = api_call(pod->endpoint, http::verb::get, "/version");
    expect_status(version, 200, "reading the server's version");
    const std::string minor =
        parse_or_throw(version, "reading the server's version").value("minor", "0");
    pod->server_minor_version = std::atoi(minor.c_str());  // "20", or "29+" on some builds

    const json ns = {{"apiVersion", "v1"},
                     {"kind", "Namespace"},
                     {"metadata", {{"name", pod->namespace_name}}}};
    expect_status(api_call(pod->endpoint, http::verb::post, "/api/v1/namespaces", ns.dump()), 201,
                  "creating the test namespace " + pod->namespace_name);
    namespace_to_delete_ = pod->namespace_name;
    endpoint_ = pod->endpoint;
    create_pod(*pod);
    wait_until_running(*pod);
    pod_ = std::move(pod);
    return pod_.get();
  }

  void delete_namespace() {
    if (namespace_to_delete_.empty()) return;
    try {
      const HttpAnswer answer = api_call(endpoint_, http::verb::delete_,
                                         "/api/v1/namespaces/" + namespace_to_delete_);
      if (answer.status != 200 && answer.status != 202) {
        ADD_FAILURE() << "Deleting the test namespace " << namespace_to_delete_ << ": HTTP "
                      << answer.status << ": " << answer.body.substr(0, 300);
      }
    } catch (const std::exception& error) {
      ADD_FAILURE() << "Deleting the test namespace " << namespace_to_delete_ << ": "
                    << error.what();
    }
    namespace_to_delete_.clear();
  }

 private:
  std::unique_ptr<TestPod> pod_;
  std::string skip_reason_;
  std::string namespace_to_delete_;
  ApiEndpoint endpoint_;
};

TestPodHolder& holder() {
  static TestPodHolder instance;
  return instance;
}

class DeleteTestNamespace : public ::testing::Environment {
 public:
  void TearDown() override { holder().delete_namespace(); }
};

[[maybe_unused]] ::testing::Environment* const registered_environment =
    ::testing::AddGlobalTestEnvironment(new DeleteTestNamespace);

}  // namespace

ConfigExpected<Credentials> FixedTokenCredentials::current() {
  Credentials credentials;
  credentials.bearer_token = token_;
  return credentials;
}

ConfigExpected<ApiEndpoint> endpoint_from_kubeconfig(const std::string& path) {
  YAML::Node config;
  try {
    config = YAML::LoadFile(path);
  } catch (const YAML::Exception& error) {
    return kubeconfig_error(path, std::string("it cannot be read as YAML: ") + error.what());
  }
  try {
    const std::string context_name = config["current-context"].as<std::string>("");
    const YAML::Node context = named_entry(config["contexts"], context_name)["context"];
    if (!context) return kubeconfig_error(path, "its current-context names no context");
    const YAML::Node cluster =
        named_entry(config["clusters"], context["cluster"].as<std::string>(""))["cluster"];
    const YAML::Node user =
        named_entry(config["users"], context["user"].as<std::string>(""))["user"];
    if (!cluster || !user) {
      return kubeconfig_error(path, "its context's cluster or user is missing");
    }

    ApiEndpoint endpoint;
    endpoint.server = cluster["server"].as<std::string>("");
    endpoint.origin = "the kubeconfig " + path;
    endpoint.context_namespace = context["namespace"].as<std::string>("");
    if (cluster["certificate-authority-data"]) {
      endpoint.ca_pem = base64_decode(cluster["certificate-authority-data"].as<std::string>());
    } else if (cluster["certificate-authority"]) {
      std::string ca_path = cluster["certificate-authority"].as<std::string>();
      if (!ca_path.empty() && ca_path.front() != '/') {
        ca_path = path.substr(0, path.rfind('/') + 1) + ca_path;
      }
      endpoint.ca_pem = read_file(ca_path);
      if (endpoint.ca_pem.empty()) return kubeconfig_error(path, "cannot read " + ca_path);
    }
    endpoint.insecure_skip_tls_verify = cluster["insecure-skip-tls-verify"].as<bool>(false);
    endpoint.credentials =
        std::make_shared<FixedTokenCredentials>(user["token"].as<std::string>(""));
    return endpoint;
  } catch (const YAML::Exception& error) {
    return kubeconfig_error(path, std::string("it is not a kubeconfig: ") + error.what());
  }
}

HttpAnswer api_call(const ApiEndpoint& endpoint, http::verb verb, const std::string& target,
                    const std::string& body) {
  const auto url = parse_server_url(endpoint.server);
  if (!url) throw std::runtime_error(url.error().message);
  const auto credentials = endpoint.credentials->current();
  if (!credentials) throw std::runtime_error(credentials.error().message);
  const auto tls = make_tls_context(endpoint, credentials.value());
  if (!tls) throw std::runtime_error(tls.error().message);

  asio::io_context io;
  TlsStream stream(io, *tls.value());
  stream.set_verify_callback(asio::ssl::host_name_verification(url.value().host));
  asio::ip::tcp::resolver resolver(io);
  beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(30));
  beast::get_lowest_layer(stream).connect(resolver.resolve(url.value().host, url.value().port));
  stream.handshake(asio::ssl::stream_base::client);

  http::request<http::string_body> request{verb, url.value().base_path + target, 11};
  request.set(http::field::host, url.value().host + ":" + url.value().port);
  request.set(http::field::authorization, "Bearer " + credentials.value().bearer_token);
  request.set(http::field::accept, "application/json");
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = body;
  }
  request.prepare_payload();
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  beast::error_code ignored;
  beast::get_lowest_layer(stream).socket().close(ignored);
  return HttpAnswer{static_cast<int>(response.result_int()), response.body()};
}

const TestPod* test_pod(std::string* skip_reason) { return holder().get(skip_reason); }

bool cluster_required() {
  const char* value = std::getenv("VC_REQUIRE_ENGINES");
  return value != nullptr && std::string(value).find("kubernetes") != std::string::npos;
}

}  // namespace vc::kubernetes::testing
