// api_client_test.cpp — REST calls against a scripted TLS server on loopback: answers and their
// errors, keep-alive reuse and its retry, the 401 retry, bounds, deadlines and cancellation.
// No cluster is needed (the same calls against a real one are in cluster_test.cpp).
#include "api_client.h"

#include <gtest/gtest.h>

#include "api_test_support.h"
#include "fake_api_server.h"

namespace vc::kubernetes {
namespace {

using testing::CountingCredentials;
using testing::FakeApiServer;
using testing::Outcome;
using Reply = FakeApiServer::Reply;
using Answer = ApiExpected<ApiResponse>;
using namespace std::chrono_literals;

class ApiClientTest : public ::testing::Test {
 protected:
  ApiEndpoint endpoint_for(const std::string& server, const std::string& ca_pem) {
    ApiEndpoint endpoint;
    endpoint.server = server;
    endpoint.ca_pem = ca_pem;
    endpoint.credentials = credentials_;
    endpoint.origin = "the test's endpoint";
    return endpoint;
  }

  std::unique_ptr<ApiClient> client_for(const FakeApiServer& server, ApiClientOptions options = {},
                                        const std::string& base_path = "") {
    auto client =
        ApiClient::create(loop_, endpoint_for(server.url() + base_path, server.certificate_pem()),
                          options);
    EXPECT_TRUE(client) << (client ? "" : client.error().message);
    return client ? std::move(client).value() : nullptr;
  }

  std::shared_ptr<Outcome<Answer>> start(ApiClient& client, ApiRequest request,
                                         ApiCallHandle* handle = nullptr) {
    auto outcome = std::make_shared<Outcome<Answer>>();
    ApiCallHandle started =
        client.request(std::move(request), [outcome](Answer answer) { outcome->set(answer); });
    if (handle) *handle = started;
    return outcome;
  }

  // The answer, or an error of kind protocol saying that none came.
  Answer call(ApiClient& client, ApiRequest request) {
    auto answer = start(client, std::move(request))->wait();
    if (!answer) return ApiError{ApiErrorKind::protocol, 0, "", "no answer within 20 s"};
    return *answer;
  }

  static ApiRequest get(std::string path) {
    ApiRequest request;
    request.path = std::move(path);
    return request;
  }

  static Reply json_reply(nlohmann::json body, int status = 200) {
    Reply reply;
    reply.status = status;
    reply.body = body.dump();
    return reply;
  }

  std::shared_ptr<CountingCredentials> credentials_ =
      std::make_shared<CountingCredentials>("token-1");
  ApiLoop loop_;  // after what the loop's callbacks use, so that it stops first
};

TEST_F(ApiClientTest, AnswersWithTheJsonBodyAndSendsWhatTheApiNeeds) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    return json_reply({{"kind", "PodList"}, {"items", nlohmann::json::array()}});
  });
  auto client = client_for(server, {}, "/k8s/clusters/c-1/");
  ApiRequest request = get("/api/v1/namespaces/ns/pods");
  request.query = {{"labelSelector", "app=web,tier in (a,b)"}};
  const Answer answer = call(*client, request);
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer.value().status, 200);
  EXPECT_EQ(answer.value().body["kind"], "PodList");
  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[0].target,
            "/k8s/clusters/c-1/api/v1/namespaces/ns/pods"
            "?labelSelector=app%3Dweb%2Ctier%20in%20%28a%2Cb%29");
  EXPECT_EQ(seen[0].authorization, "Bearer token-1");
}

TEST_F(ApiClientTest, BodiesGoWithTheirContentType) {
  FakeApiServer server([](const FakeApiServer::Request&) { return json_reply({{"ok", true}}); });
  auto client = client_for(server);
  auto wait = [](const std::shared_ptr<Outcome<Answer>>& outcome) {
    auto answer = outcome->wait();
    ASSERT_TRUE(answer && *answer);
  };
  auto created = std::make_shared<Outcome<Answer>>();
  client->create_object("/api/v1/namespaces/ns/configmaps", {{"kind", "ConfigMap"}},
                        [created](Answer answer) { created->set(answer); });
  wait(created);
  auto patched = std::make_shared<Outcome<Answer>>();
  client->patch_object("/api/v1/namespaces/ns/configmaps/c", {{"data", {{"k", "v"}}}},
                       BodyType::strategic_merge_patch,
                       [patched](Answer answer) { patched->set(answer); });
  wait(patched);
  auto deleted = std::make_shared<Outcome<Answer>>();
  client->delete_object("/api/v1/namespaces/ns/configmaps/c",
                        {.propagation_policy = "Foreground", .grace_period_seconds = 0},
                        [deleted](Answer answer) { deleted->set(answer); });
  wait(deleted);
  auto plain_delete = std::make_shared<Outcome<Answer>>();
  client->delete_object("/api/v1/namespaces/ns/configmaps/d", {},
                        [plain_delete](Answer answer) { plain_delete->set(answer); });
  wait(plain_delete);

  const auto seen = server.requests();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].content_type, "application/json");
  EXPECT_EQ(nlohmann::json::parse(seen[0].body)["kind"], "ConfigMap");
  EXPECT_EQ(seen[1].method, "PATCH");
  EXPECT_EQ(seen[1].content_type, "application/strategic-merge-patch+json");
  EXPECT_EQ(nlohmann::json::parse(seen[1].body)["data"]["k"], "v");
  EXPECT_EQ(seen[2].method, "DELETE");
  const auto options = nlohmann::json::parse(seen[2].body);
  EXPECT_EQ(options["kind"], "DeleteOptions");
  EXPECT_EQ(options["propagationPolicy"], "Foreground");
  EXPECT_EQ(options["gracePeriodSeconds"], 0);
  EXPECT_EQ(seen[3].body, "");
  EXPECT_EQ(seen[3].content_type, "");
}

TEST_F(ApiClientTest, KeepAliveReusesOneConnection) {
  FakeApiServer server([](const FakeApiServer::Request&) { return json_reply({{"n", 1}}); });
  auto client = client_for(server);
  for (int i = 0; i < 5; ++i) {
    const Answer answer = call(*client, get("/version"));
    ASSERT_TRUE(answer) << answer.error().message;
  }
  EXPECT_EQ(client->connections_opened(), 1u);
  EXPECT_EQ(server.connections_accepted(), 1);
}

TEST_F(ApiClientTest, WithoutIdleConnectionsEachCallConnects) {
  FakeApiServer server([](const FakeApiServer::Request&) { return json_reply({{"n", 1}}); });
  auto client = client_for(server, {.max_idle_connections = 0});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(call(*client, get("/version")));
  EXPECT_EQ(client->connections_opened(), 3u);
}

TEST_F(ApiClientTest, AKeptConnectionTheServerClosedIsRetriedOnceOnAFreshOne) {
  // The first answer promises keep-alive, then the server drops the connection.
  FakeApiServer server([](const FakeApiServer::Request& request) {
    Reply reply = json_reply({{"connection", request.connection}});
    reply.close_after_reply = request.connection == 1;
    return reply;
  });
  auto client = client_for(server);
  ASSERT_TRUE(call(*client, get("/version")));
  std::this_thread::sleep_for(100ms);  // the server's close has arrived
  const Answer second = call(*client, get("/version"));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second.value().body["connection"], 2);
  EXPECT_EQ(client->connections_opened(), 2u);
}

TEST_F(ApiClientTest, A401IsRetriedOnceWithFreshCredentials) {
  class RotatingCredentials final : public CountingCredentials {
   public:
    RotatingCredentials() : CountingCredentials("old") {}
    void invalidate() override {
      CountingCredentials::invalidate();
      set_token("new");
    }
  };
  auto rotating = std::make_shared<RotatingCredentials>();
  credentials_ = rotating;
  FakeApiServer server([](const FakeApiServer::Request& request) {
    if (request.authorization != "Bearer new") return json_reply({{"kind", "Status"}}, 401);
    return json_reply({{"ok", true}});
  });
  auto client = client_for(server);
  const Answer answer = call(*client, get("/version"));
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(rotating->invalidate_calls, 1);
  EXPECT_EQ(rotating->current_calls, 2);
  // The fresh credentials are cached: the next call asks nothing.
  ASSERT_TRUE(call(*client, get("/version")));
  EXPECT_EQ(rotating->current_calls, 2);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(ApiClientTest, ASecond401IsUnauthorized) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    return json_reply({{"kind", "Status"}, {"reason", "Unauthorized"}, {"message", "Unauthorized"}},
                      401);
  });
  auto client = client_for(server);
  const Answer answer = call(*client, get("/version"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::unauthorized);
  EXPECT_EQ(answer.error().http_status, 401);
  EXPECT_NE(answer.error().message.find("Are the kubeconfig's credentials current?"),
            std::string::npos);
  EXPECT_EQ(credentials_->invalidate_calls, 1);
  EXPECT_EQ(credentials_->current_calls, 2);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(ApiClientTest, AnErrorAnswerBecomesTheStatusSentence) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    return json_reply({{"kind", "Status"},
                       {"reason", "NotFound"},
                       {"message", "configmaps \"c\" not found"},
                       {"code", 404}},
                      404);
  });
  auto client = client_for(server);
  const Answer answer = call(*client, get("/api/v1/namespaces/ns/configmaps/c"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::not_found);
  EXPECT_EQ(answer.error().reason, "NotFound");
  EXPECT_EQ(answer.error().message,
            "The Kubernetes API at " + server.url() +
                " refused GET /api/v1/namespaces/ns/configmaps/c: configmaps \"c\" not found "
                "(NotFound).");
  // An error answer leaves the connection reusable.
  ASSERT_FALSE(call(*client, get("/api/v1/namespaces/ns/configmaps/c")));
  EXPECT_EQ(client->connections_opened(), 1u);
}

TEST_F(ApiClientTest, TextAnswersAreKeptAsTextAndBadJsonIsAProtocolError) {
  FakeApiServer server([](const FakeApiServer::Request& request) {
    Reply reply;
    reply.content_type = request.target == "/log" ? "text/plain" : "application/json";
    reply.body = "line one\nline two {";
    return reply;
  });
  auto client = client_for(server);
  const Answer text = call(*client, get("/log"));
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text.value().text, "line one\nline two {");
  EXPECT_TRUE(text.value().body.is_null());
  const Answer broken = call(*client, get("/json"));
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().kind, ApiErrorKind::protocol);
  EXPECT_NE(broken.error().message.find("does not parse"), std::string::npos);
}

TEST_F(ApiClientTest, AnAnswerAtTheBoundIsReadOneByteMoreIsRefused) {
  constexpr std::size_t kBound = 16 * 1024 * 1024;
  FakeApiServer server([](const FakeApiServer::Request& request) {
    Reply reply;
    const std::size_t size = request.target == "/at-bound" ? kBound : kBound + 1;
    reply.body = "\"" + std::string(size - 2, 'x') + "\"";  // a JSON string of `size` bytes
    return reply;
  });
  auto client = client_for(server);
  const Answer at_bound = call(*client, get("/at-bound"));
  ASSERT_TRUE(at_bound) << at_bound.error().message;
  EXPECT_EQ(at_bound.value().body.get_ref<const std::string&>().size(), kBound - 2);
  const Answer over = call(*client, get("/over"));
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, ApiErrorKind::protocol);
  EXPECT_NE(over.error().message.find("more than 16 MiB"), std::string::npos)
      << over.error().message;
}

TEST_F(ApiClientTest, AServerThatNeverAnswersTimesOut) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.action = Reply::Action::never_answer;
    return reply;
  });
  auto client = client_for(server);
  ApiRequest request = get("/api/v1/namespaces");
  request.timeout = 300ms;
  const auto began = std::chrono::steady_clock::now();
  const Answer answer = call(*client, request);
  const auto took = std::chrono::steady_clock::now() - began;
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::timeout);
  EXPECT_NE(answer.error().message.find("did not answer GET /api/v1/namespaces within 300 ms"),
            std::string::npos)
      << answer.error().message;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
}

TEST_F(ApiClientTest, AListenerThatNeverHandshakesTimesOut) {
  testing::SilentListener silent;
  // Long enough that even a busy machine has connected before it passes (the connection is
  // counted below): what times out is the TLS handshake the listener never answers.
  auto client = ApiClient::create(loop_, endpoint_for(silent.url(), ""),
                                  {.request_timeout = 2s});
  ASSERT_TRUE(client);
  const auto began = std::chrono::steady_clock::now();
  const Answer answer = call(*client.value(), get("/version"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::timeout) << answer.error().message;
  EXPECT_GE(std::chrono::steady_clock::now() - began, 2s);
  EXPECT_LT(std::chrono::steady_clock::now() - began, 10s);
  // The kernel completes the TCP handshake before the listener's thread accepts: on a busy
  // machine that thread may get to it after the timeout. Wait for it, bounded.
  for (int i = 0; i < 500 && silent.connections_accepted() == 0; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(silent.connections_accepted(), 1);
}

TEST_F(ApiClientTest, CancelEndsACallWaitingForItsAnswer) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.action = Reply::Action::never_answer;
    return reply;
  });
  auto client = client_for(server);
  ApiCallHandle handle;
  auto outcome = start(*client, get("/api/v1/pods"), &handle);
  for (int i = 0; i < 200 && server.requests().empty(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(server.requests().size(), 1u);  // the call is waiting for its answer
  const auto began = std::chrono::steady_clock::now();
  handle.cancel();
  const auto answer = outcome->wait(5s);
  ASSERT_TRUE(answer);
  EXPECT_LT(std::chrono::steady_clock::now() - began, 1s);
  ASSERT_FALSE(*answer);
  EXPECT_EQ(answer->error().kind, ApiErrorKind::cancelled);
  EXPECT_NE(answer->error().message.find("GET /api/v1/pods"), std::string::npos);
  handle.cancel();  // again: nothing more happens
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(outcome->deliveries(), 1);
}

TEST_F(ApiClientTest, CancelEndsACallDuringItsHandshake) {
  testing::SilentListener silent;
  auto client = ApiClient::create(loop_, endpoint_for(silent.url(), ""));
  ASSERT_TRUE(client);
  ApiCallHandle handle;
  auto outcome = start(*client.value(), get("/version"), &handle);
  for (int i = 0; i < 200 && silent.connections_accepted() == 0; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  handle.cancel();
  const auto answer = outcome->wait(2s);
  ASSERT_TRUE(answer);
  ASSERT_FALSE(*answer);
  EXPECT_EQ(answer->error().kind, ApiErrorKind::cancelled);
}

TEST_F(ApiClientTest, NothingListeningIsUnreachable) {
  const std::string url = "https://127.0.0.1:" + std::to_string(testing::unused_loopback_port());
  auto client = ApiClient::create(loop_, endpoint_for(url, ""));
  ASSERT_TRUE(client);
  const Answer answer = call(*client.value(), get("/version"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::unreachable);
  EXPECT_NE(answer.error().message.find("Cannot reach the Kubernetes API at " + url + ": "),
            std::string::npos)
      << answer.error().message;
}

TEST_F(ApiClientTest, AnUntrustedCertificateIsATlsError) {
  FakeApiServer server([](const FakeApiServer::Request&) { return json_reply({}); });
  FakeApiServer other([](const FakeApiServer::Request&) { return json_reply({}); });
  auto client = ApiClient::create(loop_, endpoint_for(server.url(), other.certificate_pem()));
  ASSERT_TRUE(client);
  const Answer answer = call(*client.value(), get("/version"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::tls);
  EXPECT_NE(answer.error().message.find("the server's certificate was not accepted"),
            std::string::npos)
      << answer.error().message;
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(ApiClientTest, AFailingCredentialSourceIsACredentialsError) {
  credentials_->fail_with = "The exec plugin aws-iam-authenticator failed: exit status 1.";
  FakeApiServer server([](const FakeApiServer::Request&) { return json_reply({}); });
  auto client = client_for(server);
  const Answer answer = call(*client, get("/version"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ApiErrorKind::credentials);
  EXPECT_EQ(answer.error().message, "Cannot get credentials for the Kubernetes API at " +
                                        server.url() +
                                        " from the test's fixed token: The exec plugin "
                                        "aws-iam-authenticator failed: exit status 1.");
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(ApiClientTest, CredentialsAreAskedForOnceAndSharedByConcurrentCalls) {
  FakeApiServer server([](const FakeApiServer::Request&) { return json_reply({}); });
  auto client = client_for(server);
  std::vector<std::shared_ptr<Outcome<Answer>>> outcomes;
  for (int i = 0; i < 8; ++i) outcomes.push_back(start(*client, get("/version")));
  for (auto& outcome : outcomes) {
    auto answer = outcome->wait();
    ASSERT_TRUE(answer && *answer);
  }
  EXPECT_EQ(credentials_->current_calls, 1);
  EXPECT_LE(client->connections_opened(), 8u);
}

TEST_F(ApiClientTest, ACallbackMayStartTheNextCall) {
  FakeApiServer server([](const FakeApiServer::Request& request) {
    return json_reply({{"target", request.target}});
  });
  auto client = client_for(server);
  auto second = std::make_shared<Outcome<Answer>>();
  ApiClient* raw = client.get();
  client->get_object("/first", [raw, second](Answer first) {
    EXPECT_TRUE(first);
    raw->get_object("/second", [second](Answer answer) { second->set(answer); });
  });
  auto answer = second->wait();
  ASSERT_TRUE(answer && *answer);
  EXPECT_EQ(answer->value().body["target"], "/second");
}

TEST_F(ApiClientTest, DestroyingTheClientCancelsItsCalls) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.action = Reply::Action::never_answer;
    return reply;
  });
  auto client = client_for(server);
  auto outcome = start(*client, get("/version"));
  for (int i = 0; i < 200 && server.requests().empty(); ++i) std::this_thread::sleep_for(10ms);
  client.reset();
  const auto answer = outcome->wait(2s);
  ASSERT_TRUE(answer);
  ASSERT_FALSE(*answer);
  EXPECT_EQ(answer->error().kind, ApiErrorKind::cancelled);
}

TEST_F(ApiClientTest, CreateRefusesABadAddressAndAMissingCredentialSource) {
  auto http = ApiClient::create(loop_, endpoint_for("http://127.0.0.1:8080", ""));
  ASSERT_FALSE(http);
  EXPECT_NE(http.error().message.find("plain http is not supported"), std::string::npos);
  ApiEndpoint endpoint = endpoint_for("https://127.0.0.1:6443", "");
  endpoint.credentials = nullptr;
  auto no_source = ApiClient::create(loop_, endpoint);
  ASSERT_FALSE(no_source);
  EXPECT_EQ(no_source.error().kind, ApiErrorKind::credentials);
}

TEST(ApiClientShortcuts, ListAndDeleteOptionsBecomeWhatTheApiReads) {
  const QueryParams query = list_query({.label_selector = "app=web",
                                        .field_selector = "metadata.name=x",
                                        .limit = 50,
                                        .continue_token = "abc"});
  ASSERT_EQ(query.size(), 4u);
  EXPECT_EQ(query[0].name, "labelSelector");
  EXPECT_EQ(query[1].name, "fieldSelector");
  EXPECT_EQ(query[2].value, "50");
  EXPECT_EQ(query[3].name, "continue");
  EXPECT_TRUE(list_query({}).empty());
  EXPECT_TRUE(delete_options_body({}).is_null());
  EXPECT_EQ(delete_options_body({.propagation_policy = "Background"}),
            (nlohmann::json{{"apiVersion", "v1"},
                            {"kind", "DeleteOptions"},
                            {"propagationPolicy", "Background"}}));
  EXPECT_EQ(std::string(content_type_name(BodyType::merge_patch)), "application/merge-patch+json");
  EXPECT_EQ(std::string(http_method_name(HttpMethod::delete_)), "DELETE");
}

}  // namespace
}  // namespace vc::kubernetes
