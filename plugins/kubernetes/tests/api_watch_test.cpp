// api_watch_test.cpp — watches against a scripted TLS server on loopback: events split across
// chunks, events handed out as they come, the ends (server, stop, ERROR event, refusal) and the
// bounds. No cluster is needed (a watch on a real one is in cluster_test.cpp).
#include "api_watch.h"

#include <gtest/gtest.h>

#include "api_test_support.h"
#include "fake_api_server.h"

namespace vc::kubernetes {
namespace {

using testing::CountingCredentials;
using testing::FakeApiServer;
using testing::Outcome;
using Reply = FakeApiServer::Reply;
using namespace std::chrono_literals;

std::string event_line(const std::string& type, const std::string& name, int version) {
  return nlohmann::json{{"type", type},
                        {"object",
                         {{"kind", "ConfigMap"},
                          {"metadata",
                           {{"name", name}, {"resourceVersion", std::to_string(version)}}}}}}
             .dump() +
         "\n";
}

// What a watch delivered, filled on the loop thread and read on the test's.
struct Watched {
  std::mutex mutex;
  std::vector<WatchEvent> events;
  std::condition_variable event_came;
  Outcome<ApiExpected<void>> end;

  std::vector<WatchEvent> wait_for_events(std::size_t count, std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex);
    event_came.wait_for(lock, limit, [&] { return events.size() >= count; });
    return events;
  }
  std::vector<WatchEvent> snapshot() {
    std::lock_guard lock(mutex);
    return events;
  }
};

class ApiWatchTest : public ::testing::Test {
 protected:
  std::unique_ptr<ApiClient> client_for(const FakeApiServer& server) {
    ApiEndpoint endpoint;
    endpoint.server = server.url();
    endpoint.ca_pem = server.certificate_pem();
    endpoint.credentials = credentials_;
    auto client = ApiClient::create(loop_, endpoint);
    EXPECT_TRUE(client);
    return std::move(client).value();
  }

  std::shared_ptr<Watched> start(ApiClient& client, WatchRequest request,
                                 WatchHandle* handle = nullptr) {
    auto watched = std::make_shared<Watched>();
    WatchHandle started = watch(
        client, std::move(request),
        [watched](WatchEvent event) {
          std::lock_guard lock(watched->mutex);
          watched->events.push_back(std::move(event));
          watched->event_came.notify_all();
        },
        [watched](ApiExpected<void> end) { watched->end.set(end); });
    if (handle) *handle = started;
    return watched;
  }

  std::shared_ptr<CountingCredentials> credentials_ = std::make_shared<CountingCredentials>("t");
  ApiLoop loop_;
};

TEST_F(ApiWatchTest, EventsSplitAnywhereArriveWholeAndInOrder) {
  const std::string name = "caf\xC3\xA9";
  const std::string stream = event_line("ADDED", name, 6) + event_line("MODIFIED", name, 7) +
                             event_line("BOOKMARK", "", 8) + event_line("DELETED", name, 9);
  FakeApiServer server([&stream](const FakeApiServer::Request&) {
    Reply reply;
    // Cut in odd places: inside a JSON string, inside the two-byte é, just before a newline.
    const std::size_t e_acute = stream.find("\xC3\xA9");
    const std::size_t cuts[] = {0, 5, e_acute + 1, stream.find('\n'), stream.size() - 3,
                                stream.size()};
    for (std::size_t i = 0; i + 1 < std::size(cuts); ++i) {
      reply.chunks.push_back(stream.substr(cuts[i], cuts[i + 1] - cuts[i]));
    }
    reply.pause = 5ms;
    return reply;
  });
  auto client = client_for(server);
  auto watched = start(*client, {.path = "/api/v1/namespaces/ns/configmaps",
                                 .resource_version = "5",
                                 .label_selector = "app=web",
                                 .timeout_seconds = 30});
  const auto end = watched->end.wait();
  ASSERT_TRUE(end);
  EXPECT_TRUE(*end) << end->error().message;  // the server ended the watch: success
  const auto events = watched->snapshot();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].type, WatchEventType::added);
  EXPECT_EQ(events[0].object["metadata"]["name"], "caf\xC3\xA9");
  EXPECT_EQ(events[1].type, WatchEventType::modified);
  EXPECT_EQ(events[2].type, WatchEventType::bookmark);
  EXPECT_EQ(events[2].object["metadata"]["resourceVersion"], "8");
  EXPECT_EQ(events[3].type, WatchEventType::deleted);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].target,
            "/api/v1/namespaces/ns/configmaps?watch=true&allowWatchBookmarks=true"
            "&resourceVersion=5&labelSelector=app%3Dweb&timeoutSeconds=30");
  EXPECT_EQ(server.requests()[0].authorization, "Bearer t");
}

TEST_F(ApiWatchTest, AnEventIsHandedOutAsSoonAsItCame) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.chunks = {event_line("ADDED", "a", 1)};
    reply.hold_open = true;  // nothing more comes, and the stream does not end
    return reply;
  });
  auto client = client_for(server);
  WatchHandle handle;
  auto watched = start(*client, {.path = "/api/v1/configmaps"}, &handle);
  const auto events = watched->wait_for_events(1, 5s);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].object["metadata"]["name"], "a");
  EXPECT_FALSE(watched->end.wait(50ms));  // still watching
  handle.stop();
  const auto end = watched->end.wait(2s);
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::cancelled);
  handle.stop();
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(watched->end.deliveries(), 1);
  EXPECT_EQ(watched->snapshot().size(), 1u);
}

TEST_F(ApiWatchTest, AnErrorEventIsDeliveredThenEndsTheWatchAsGone) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.chunks = {nlohmann::json{{"type", "ERROR"},
                                   {"object",
                                    {{"kind", "Status"},
                                     {"code", 410},
                                     {"reason", "Expired"},
                                     {"message", "too old resource version: 5 (80)"}}}}
                            .dump() +
                        "\n" + event_line("ADDED", "never-delivered", 81)};
    reply.hold_open = true;
    return reply;
  });
  auto client = client_for(server);
  auto watched = start(*client, {.path = "/api/v1/configmaps", .resource_version = "5"});
  const auto end = watched->end.wait();
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::gone);
  EXPECT_NE(end->error().message.find("too old resource version"), std::string::npos);
  const auto events = watched->snapshot();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::error);
}

TEST_F(ApiWatchTest, ARefusalIsTheStatusSentence) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.status = 403;
    reply.body = nlohmann::json{{"kind", "Status"},
                                {"reason", "Forbidden"},
                                {"message", "configmaps is forbidden"},
                                {"code", 403}}
                     .dump();
    return reply;
  });
  auto client = client_for(server);
  auto watched = start(*client, {.path = "/api/v1/namespaces/ns/configmaps"});
  const auto end = watched->end.wait();
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::forbidden);
  EXPECT_NE(end->error().message.find("watch configmaps in the namespace ns"), std::string::npos)
      << end->error().message;
}

TEST_F(ApiWatchTest, AnEventOverTheBoundIsAProtocolError) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.chunks = {event_line("ADDED", "small", 1),
                    event_line("ADDED", std::string(2000, 'x'), 2)};
    reply.hold_open = true;
    return reply;
  });
  auto client = client_for(server);
  auto watched = start(*client, {.path = "/api/v1/configmaps", .max_event_bytes = 1024});
  const auto end = watched->end.wait();
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::protocol);
  EXPECT_NE(end->error().message.find("larger than 1 KiB"), std::string::npos)
      << end->error().message;
  EXPECT_EQ(watched->snapshot().size(), 1u);
}

TEST_F(ApiWatchTest, ALineThatIsNotAnEventIsAProtocolError) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.chunks = {"{\"kind\":\"Status\"}\n"};
    reply.hold_open = true;
    return reply;
  });
  auto client = client_for(server);
  auto watched = start(*client, {.path = "/api/v1/configmaps"});
  const auto end = watched->end.wait();
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::protocol);
}

TEST_F(ApiWatchTest, AWatchHasAConnectionOfItsOwn) {
  FakeApiServer server([](const FakeApiServer::Request& request) {
    Reply reply;
    if (request.target.find("watch=true") != std::string::npos) {
      reply.chunks = {event_line("ADDED", "a", 1)};
      reply.hold_open = true;
    } else {
      reply.body = "{}";
    }
    return reply;
  });
  auto client = client_for(server);
  auto rest = std::make_shared<Outcome<ApiExpected<ApiResponse>>>();
  client->get_object("/api/v1/configmaps", [rest](ApiExpected<ApiResponse> a) { rest->set(a); });
  ASSERT_TRUE(rest->wait());
  EXPECT_EQ(client->connections_opened(), 1u);
  WatchHandle handle;
  auto watched = start(*client, {.path = "/api/v1/configmaps"}, &handle);
  ASSERT_EQ(watched->wait_for_events(1, 5s).size(), 1u);
  EXPECT_EQ(client->connections_opened(), 2u);  // not the idle one
  auto again = std::make_shared<Outcome<ApiExpected<ApiResponse>>>();
  client->get_object("/api/v1/configmaps", [again](ApiExpected<ApiResponse> a) { again->set(a); });
  ASSERT_TRUE(again->wait());
  EXPECT_EQ(client->connections_opened(), 2u);  // the idle one again
  handle.stop();
  ASSERT_TRUE(watched->end.wait());
}

TEST_F(ApiWatchTest, A401IsRetriedOnceWithFreshCredentials) {
  FakeApiServer server([](const FakeApiServer::Request& request) {
    Reply reply;
    if (request.connection == 1) {
      reply.status = 401;
      reply.body = R"({"kind":"Status","reason":"Unauthorized","code":401})";
      return reply;
    }
    reply.chunks = {event_line("ADDED", "a", 1)};
    return reply;
  });
  auto client = client_for(server);
  auto watched = start(*client, {.path = "/api/v1/configmaps"});
  const auto end = watched->end.wait();
  ASSERT_TRUE(end);
  EXPECT_TRUE(*end) << end->error().message;
  EXPECT_EQ(watched->snapshot().size(), 1u);
  EXPECT_EQ(credentials_->invalidate_calls, 1);
  EXPECT_EQ(server.connections_accepted(), 2);
}

TEST_F(ApiWatchTest, StopBeforeTheWatchBeganEndsItCancelled) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.action = Reply::Action::never_answer;
    return reply;
  });
  auto client = client_for(server);
  WatchHandle handle;
  auto watched = start(*client, {.path = "/api/v1/configmaps"}, &handle);
  handle.stop();
  const auto end = watched->end.wait(2s);
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::cancelled);
}

TEST_F(ApiWatchTest, DestroyingTheClientEndsItsWatches) {
  FakeApiServer server([](const FakeApiServer::Request&) {
    Reply reply;
    reply.chunks = {event_line("ADDED", "a", 1)};
    reply.hold_open = true;
    return reply;
  });
  auto client = client_for(server);
  auto watched = start(*client, {.path = "/api/v1/configmaps"});
  ASSERT_EQ(watched->wait_for_events(1, 5s).size(), 1u);
  client.reset();
  const auto end = watched->end.wait(2s);
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::cancelled);
}

TEST_F(ApiWatchTest, AWatchThatDoesNotBeginTimesOut) {
  testing::SilentListener silent;
  ApiEndpoint endpoint;
  endpoint.server = silent.url();
  endpoint.credentials = credentials_;
  auto client = ApiClient::create(loop_, endpoint, {.request_timeout = 300ms});
  ASSERT_TRUE(client);
  auto watched = start(*client.value(), {.path = "/api/v1/configmaps"});
  const auto end = watched->end.wait(5s);
  ASSERT_TRUE(end);
  ASSERT_FALSE(*end);
  EXPECT_EQ(end->error().kind, ApiErrorKind::timeout);
  EXPECT_NE(end->error().message.find("did not begin the watch of /api/v1/configmaps within "
                                      "300 ms"),
            std::string::npos)
      << end->error().message;
}

TEST(ApiWatchQuery, SendsOnlyWhatIsSet) {
  const QueryParams bare = watch_query({.path = "/x", .allow_bookmarks = false});
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0].name, "watch");
  const QueryParams full = watch_query({.path = "/x",
                                        .resource_version = "12",
                                        .label_selector = "a=b",
                                        .field_selector = "metadata.name=c",
                                        .timeout_seconds = 60});
  ASSERT_EQ(full.size(), 6u);
  EXPECT_EQ(full[1].name, "allowWatchBookmarks");
  EXPECT_EQ(full[2].value, "12");
  EXPECT_EQ(full[4].name, "fieldSelector");
  EXPECT_EQ(full[5].value, "60");
  EXPECT_STREQ(watch_event_type_name(WatchEventType::bookmark), "BOOKMARK");
}

}  // namespace
}  // namespace vc::kubernetes
