// cluster_test.cpp — the REST client and watches against a real cluster (label "kubernetes"):
// version, a ConfigMap's life in a namespace of the test's own, a conflict, a not-found sentence,
// a watch's events, keep-alive, refused credentials and an untrusted certificate, cancel and
// deadline on a long GET.
//
// The kubeconfig is VC_TEST_KUBECONFIG (default /var/lib/mcp-virtual-computer-k8s/kubeconfig),
// read here with yaml-cpp for its current context's server, certificate-authority file and
// token. Without it the tests skip, unless VC_REQUIRE_ENGINES names kubernetes: then they fail.
// Each test process makes a namespace vc-test-rest-<random> and deletes it at its end.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "api_client.h"
#include "api_test_support.h"
#include "api_watch.h"

namespace vc::kubernetes {
namespace {

using testing::CountingCredentials;
using testing::Outcome;
using Answer = ApiExpected<ApiResponse>;
using namespace std::chrono_literals;

struct ClusterAccess {
  std::string server;
  std::string ca_pem;
  std::string token;
};

std::string kubeconfig_path() {
  const char* path = std::getenv("VC_TEST_KUBECONFIG");
  return path && *path ? path : "/var/lib/mcp-virtual-computer-k8s/kubeconfig";
}

bool kubernetes_required() {
  const char* engines = std::getenv("VC_REQUIRE_ENGINES");
  return engines && std::string(engines).find("kubernetes") != std::string::npos;
}

YAML::Node named(const YAML::Node& list, const std::string& name) {
  for (const auto& entry : list) {
    if (entry["name"].as<std::string>() == name) return entry;
  }
  throw std::runtime_error("no entry named " + name);
}

// The current context's server, CA file and token; an error message when it cannot be read.
std::variant<ClusterAccess, std::string> read_kubeconfig(const std::string& path) {
  try {
    const YAML::Node config = YAML::LoadFile(path);
    const YAML::Node context =
        named(config["contexts"], config["current-context"].as<std::string>())["context"];
    const YAML::Node cluster =
        named(config["clusters"], context["cluster"].as<std::string>())["cluster"];
    const YAML::Node user = named(config["users"], context["user"].as<std::string>())["user"];
    ClusterAccess access;
    access.server = cluster["server"].as<std::string>();
    std::ifstream ca_file(cluster["certificate-authority"].as<std::string>());
    std::stringstream ca;
    ca << ca_file.rdbuf();
    access.ca_pem = ca.str();
    access.token = user["token"].as<std::string>();
    if (access.ca_pem.empty()) return "its certificate-authority file is empty or unreadable";
    return access;
  } catch (const std::exception& error) {
    return std::string(error.what());
  }
}

std::string random_suffix() {
  std::random_device random;
  std::ostringstream text;
  text << std::hex << (random() & 0xFFFFFF);
  return text.str();
}

class ClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = kubeconfig_path();
    if (!std::filesystem::exists(path)) {
      problem_ = new std::string("no kubeconfig at " + path);
      return;
    }
    auto read = read_kubeconfig(path);
    if (auto* message = std::get_if<std::string>(&read)) {
      problem_ = new std::string("the kubeconfig " + path + " cannot be read: " + *message);
      return;
    }
    access_ = new ClusterAccess(std::get<ClusterAccess>(read));
    namespace_ = new std::string("vc-test-rest-" + random_suffix());
  }

  static void TearDownTestSuite() {
    if (access_ && namespace_created_) {
      ApiLoop loop;
      auto client = ApiClient::create(loop, endpoint_with(access_->ca_pem, access_->token));
      auto deleted = std::make_shared<Outcome<Answer>>();
      client.value()->delete_object("/api/v1/namespaces/" + *namespace_,
                                    {.propagation_policy = "Background"},
                                    [deleted](Answer answer) { deleted->set(answer); });
      const auto answer = deleted->wait();
      EXPECT_TRUE(answer && *answer) << "deleting the namespace " << *namespace_;
      client.value().reset();
    }
    delete access_;
    delete problem_;
    delete namespace_;
    access_ = nullptr;
    problem_ = nullptr;
    namespace_ = nullptr;
  }

  void SetUp() override {
    if (!access_) {
      if (kubernetes_required()) FAIL() << "VC_REQUIRE_ENGINES names kubernetes, but " << *problem_;
      GTEST_SKIP() << *problem_;
    }
    credentials_ = std::make_shared<CountingCredentials>(access_->token);
    client_ = make_client(endpoint_with(access_->ca_pem, access_->token, credentials_));
    ASSERT_TRUE(client_);
  }

  void TearDown() override { client_.reset(); }

  static ApiEndpoint endpoint_with(const std::string& ca_pem, const std::string& token,
                                   std::shared_ptr<CredentialSource> source = nullptr) {
    ApiEndpoint endpoint;
    endpoint.server = access_->server;
    endpoint.ca_pem = ca_pem;
    endpoint.credentials = source ? source : std::make_shared<CountingCredentials>(token);
    endpoint.origin = "the kubeconfig " + kubeconfig_path();
    return endpoint;
  }

  std::unique_ptr<ApiClient> make_client(ApiEndpoint endpoint, ApiClientOptions options = {}) {
    auto client = ApiClient::create(loop_, std::move(endpoint), options);
    EXPECT_TRUE(client) << (client ? "" : client.error().message);
    return client ? std::move(client).value() : nullptr;
  }

  // Runs `start` (which starts one call with the callback it is given) and waits for its answer.
  template <class Start>
  static Answer wait_for(Start start) {
    auto outcome = std::make_shared<Outcome<Answer>>();
    start([outcome](Answer answer) { outcome->set(answer); });
    auto answer = outcome->wait(30s);
    if (!answer) return ApiError{ApiErrorKind::protocol, 0, "", "no answer within 30 s"};
    return *answer;
  }

  Answer get(const std::string& path) {
    return wait_for([&](auto done) { client_->get_object(path, done); });
  }

  // The test's namespace, made on first use.
  const std::string& test_namespace() {
    if (!namespace_created_) {
      const Answer made = wait_for([&](auto done) {
        client_->create_object("/api/v1/namespaces",
                               {{"apiVersion", "v1"},
                                {"kind", "Namespace"},
                                {"metadata", {{"name", *namespace_}}}},
                               done);
      });
      EXPECT_TRUE(made) << made.error().message;
      namespace_created_ = made.ok();
    }
    return *namespace_;
  }

  std::string configmaps_path() { return "/api/v1/namespaces/" + test_namespace() + "/configmaps"; }

  static nlohmann::json config_map(const std::string& name) {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", name}, {"labels", {{"app", "vc-test"}}}}},
            {"data", {{"greeting", "hello"}}}};
  }

  static inline ClusterAccess* access_ = nullptr;
  static inline std::string* problem_ = nullptr;
  static inline std::string* namespace_ = nullptr;
  static inline bool namespace_created_ = false;

  std::shared_ptr<CountingCredentials> credentials_;
  ApiLoop loop_;
  std::unique_ptr<ApiClient> client_;  // after loop_: destroyed before it stops
};

TEST_F(ClusterTest, VersionAnswers) {
  const Answer version = get("/version");
  ASSERT_TRUE(version) << version.error().message;
  EXPECT_EQ(version.value().status, 200);
  EXPECT_TRUE(version.value().body["gitVersion"].is_string()) << version.value().body.dump();
  EXPECT_EQ(credentials_->current_calls, 1);
}

TEST_F(ClusterTest, AConfigMapsLife) {
  const std::string path = configmaps_path();
  const Answer created = wait_for([&](auto done) {
    client_->create_object(path, config_map("settings"), done);
  });
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created.value().status, 201);
  EXPECT_EQ(created.value().body["metadata"]["namespace"], test_namespace());

  const Answer again = wait_for([&](auto done) {
    client_->create_object(path, config_map("settings"), done);
  });
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ApiErrorKind::conflict);
  EXPECT_EQ(again.error().http_status, 409);
  EXPECT_EQ(again.error().reason, "AlreadyExists");

  const Answer read = get(path + "/settings");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read.value().body["data"]["greeting"], "hello");

  const Answer patched = wait_for([&](auto done) {
    client_->patch_object(path + "/settings", {{"data", {{"greeting", "hej"}, {"extra", "1"}}}},
                          BodyType::merge_patch, done);
  });
  ASSERT_TRUE(patched) << patched.error().message;
  EXPECT_EQ(patched.value().body["data"]["greeting"], "hej");
  EXPECT_EQ(patched.value().body["data"]["extra"], "1");

  const Answer strategic = wait_for([&](auto done) {
    client_->patch_object(path + "/settings", {{"metadata", {{"labels", {{"tier", "x.y"}}}}}},
                          BodyType::strategic_merge_patch, done);
  });
  ASSERT_TRUE(strategic) << strategic.error().message;

  const Answer listed = wait_for([&](auto done) {
    client_->list_objects(path, {.label_selector = "app=vc-test,tier in (x.y,z)"}, done);
  });
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed.value().body["items"].size(), 1u);
  EXPECT_EQ(listed.value().body["items"][0]["metadata"]["name"], "settings");
  const Answer none = wait_for([&](auto done) {
    client_->list_objects(path, {.label_selector = "app=vc-test,tier notin (x.y)"}, done);
  });
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none.value().body["items"].empty());

  const Answer deleted = wait_for([&](auto done) {
    client_->delete_object(path + "/settings", {.grace_period_seconds = 0}, done);
  });
  ASSERT_TRUE(deleted) << deleted.error().message;

  const Answer gone = get(path + "/settings");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().kind, ApiErrorKind::not_found);
  EXPECT_EQ(gone.error().message, "The Kubernetes API at " + access_->server + " refused GET " +
                                      path + "/settings: configmaps \"settings\" not found "
                                      "(NotFound).");
}

TEST_F(ClusterTest, AWatchSeesAConfigMapComeChangeAndGo) {
  const std::string path = configmaps_path();
  const Answer listed = wait_for([&](auto done) { client_->list_objects(path, {}, done); });
  ASSERT_TRUE(listed) << listed.error().message;
  const std::string version = listed.value().body["metadata"]["resourceVersion"];

  struct Seen {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<WatchEventType> types;  // BOOKMARKs left out
    Outcome<ApiExpected<void>> end;
  };
  auto seen = std::make_shared<Seen>();
  WatchHandle handle = watch(
      *client_,
      {.path = path, .resource_version = version, .label_selector = "app=vc-test",
       .timeout_seconds = 120},
      [seen](WatchEvent event) {
        if (event.type == WatchEventType::bookmark) return;
        EXPECT_EQ(event.object["metadata"]["name"], "watched");
        std::lock_guard lock(seen->mutex);
        seen->types.push_back(event.type);
        seen->changed.notify_all();
      },
      [seen](ApiExpected<void> end) { seen->end.set(end); });

  ASSERT_TRUE(wait_for([&](auto done) {
    client_->create_object(path, config_map("watched"), done);
  }));
  ASSERT_TRUE(wait_for([&](auto done) {
    client_->patch_object(path + "/watched", {{"data", {{"greeting", "changed"}}}},
                          BodyType::merge_patch, done);
  }));
  ASSERT_TRUE(wait_for([&](auto done) { client_->delete_object(path + "/watched", {}, done); }));

  std::vector<WatchEventType> types;
  {
    std::unique_lock lock(seen->mutex);
    seen->changed.wait_for(lock, 20s, [&] { return seen->types.size() >= 3; });
    types = seen->types;
  }
  EXPECT_EQ(types, (std::vector<WatchEventType>{WatchEventType::added, WatchEventType::modified,
                                                 WatchEventType::deleted}));
  EXPECT_FALSE(seen->end.wait(10ms));  // still watching
  handle.stop();
  const auto end = seen->end.wait(5s);
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::cancelled);
}

TEST_F(ClusterTest, KeepAliveReusesTheConnection) {
  for (int i = 0; i < 5; ++i) {
    const Answer answer = get("/api/v1/namespaces/default");
    ASSERT_TRUE(answer) << answer.error().message;
  }
  EXPECT_EQ(client_->connections_opened(), 1u);
  EXPECT_EQ(credentials_->current_calls, 1);
}

TEST_F(ClusterTest, ABadTokenIsUnauthorizedAfterOneFreshTry) {
  auto wrong = std::make_shared<CountingCredentials>("not-a-token-of-this-cluster");
  client_ = make_client(endpoint_with(access_->ca_pem, "", wrong));
  const Answer answer = get("/api/v1/namespaces");
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::unauthorized);
  EXPECT_EQ(answer.error().http_status, 401);
  EXPECT_NE(answer.error().message.find("Are the kubeconfig's credentials current?"),
            std::string::npos)
      << answer.error().message;
  EXPECT_EQ(wrong->invalidate_calls, 1);
  EXPECT_EQ(wrong->current_calls, 2);
}

TEST_F(ClusterTest, AnUntrustedCertificateIsATlsError) {
  // No CA: the system's trust store, which does not know the cluster's own certificate.
  client_ = make_client(endpoint_with("", access_->token));
  const Answer answer = get("/version");
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::tls);
  EXPECT_NE(answer.error().message.find("the server's certificate was not accepted"),
            std::string::npos)
      << answer.error().message;
}

TEST_F(ClusterTest, CancelEndsALongGetPromptly) {
  // A watch read as one REST answer: it does not end before its timeoutSeconds.
  ApiRequest request;
  request.path = "/api/v1/namespaces/" + test_namespace() + "/configmaps";
  request.query = {{"watch", "true"}, {"timeoutSeconds", "60"}};
  auto outcome = std::make_shared<Outcome<Answer>>();
  ApiCallHandle handle = client_->request(request, [outcome](Answer a) { outcome->set(a); });
  EXPECT_FALSE(outcome->wait(1s));  // in flight
  const auto began = std::chrono::steady_clock::now();
  handle.cancel();
  const auto answer = outcome->wait(5s);
  ASSERT_TRUE(answer);
  EXPECT_LT(std::chrono::steady_clock::now() - began, 1s);
  ASSERT_FALSE(*answer);
  EXPECT_EQ(answer->error().kind, ApiErrorKind::cancelled);
}

TEST_F(ClusterTest, ALongGetPastItsDeadlineTimesOut) {
  ApiRequest request;
  request.path = "/api/v1/namespaces/" + test_namespace() + "/configmaps";
  request.query = {{"watch", "true"}, {"timeoutSeconds", "60"}};
  request.timeout = 700ms;
  const auto began = std::chrono::steady_clock::now();
  const Answer answer = wait_for([&](auto done) { client_->request(request, done); });
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::timeout) << answer.error().message;
  EXPECT_GE(std::chrono::steady_clock::now() - began, 700ms);
  EXPECT_LT(std::chrono::steady_clock::now() - began, 10s);
}

}  // namespace
}  // namespace vc::kubernetes
