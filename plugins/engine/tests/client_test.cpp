// client_test.cpp — EngineClient against a scripted fake engine: bodies, errors, streams,
// long polls, deadlines, connection failures, negotiation.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <thread>

#include "fake_engine.h"
#include "vc_engine/engine_client.h"

namespace vc::engine {
namespace {

using namespace std::chrono_literals;
using testing::chunked;
using testing::FakeConnection;
using testing::FakeEngine;
using testing::http_response;
using testing::Outcome;

class ClientTest : public ::testing::Test {
 protected:
  // Starts a fake engine with `script` and a client pointed at it.
  void serve(FakeEngine::Script script) {
    engine_ = FakeEngine::on_unix_socket(std::move(script));
    client_ =
        std::make_unique<EngineClient>(loop_, EngineAddress::parse(engine_->address()).value());
  }

  Result<JsonResponse> get_json(const std::string& path,
                                RequestOptions deadlines = RequestOptions::buffered()) {
    Outcome<Result<JsonResponse>> outcome;
    client_->get_json(path, outcome.callback(), deadlines);
    auto* result = outcome.get();
    if (result == nullptr) {
      ADD_FAILURE() << "no completion for GET " << path;
      EngineError error;
      error.message = "test timeout";
      return error;
    }
    return *result;
  }

  EngineLoop loop_;
  std::unique_ptr<FakeEngine> engine_;
  std::unique_ptr<EngineClient> client_;
};

TEST_F(ClientTest, ContentLengthBodyAndRequestShape) {
  auto seen = std::make_shared<FakeConnection::Request>();
  serve([seen](FakeConnection& connection) {
    *seen = connection.read_request();
    connection.send(http_response(200, "OK", R"({"Version":"20.10.24"})"));
  });
  auto result = get_json("/version");
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result.value().status, 200);
  EXPECT_EQ(result.value().body["Version"], "20.10.24");
  EXPECT_EQ(seen->method, "GET");
  EXPECT_EQ(seen->target, "/v1.41/version");
  EXPECT_EQ(seen->headers.find("host"), "docker");
  EXPECT_EQ(seen->headers.find("user-agent"), "mcp-virtual-computer");
  EXPECT_EQ(seen->headers.find("connection"), "close");
}

TEST_F(ClientTest, PostJsonSendsBodyAndContentType) {
  auto seen = std::make_shared<FakeConnection::Request>();
  serve([seen](FakeConnection& connection) {
    *seen = connection.read_request();
    connection.send(http_response(201, "Created", R"({"Id":"abc","Warnings":[]})"));
  });
  Outcome<Result<JsonResponse>> outcome;
  client_->post_json("/containers/create?name=kilntainer-x",
                     nlohmann::json{{"Image", "bb:test"}, {"Labels", {{"vc-test", "é"}}}},
                     outcome.callback());
  auto* result = outcome.get();
  ASSERT_NE(result, nullptr);
  ASSERT_TRUE(*result) << result->error().message;
  EXPECT_EQ(result->value().status, 201);
  EXPECT_EQ(result->value().body["Id"], "abc");
  EXPECT_EQ(seen->method, "POST");
  EXPECT_EQ(seen->target, "/v1.41/containers/create?name=kilntainer-x");
  EXPECT_EQ(seen->headers.find("content-type"), "application/json");
  EXPECT_EQ(nlohmann::json::parse(seen->body)["Labels"]["vc-test"], "é");
  EXPECT_EQ(seen->headers.find("content-length"), std::to_string(seen->body.size()));
}

TEST_F(ClientTest, ChunkedBodySplitAcrossReads) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    const std::string body =
        chunked({R"([{"Id":"a",)", R"("Names":["/kilntainer-1"]},)", R"({"Id":"b"}])"});
    const std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::string all = head + body;
    // Cut inside the head, inside a chunk-size line and inside chunk data.
    connection.send_pieces({all.substr(0, 20), all.substr(20, head.size() - 20 + 1),
                            all.substr(head.size() + 1, 9), all.substr(head.size() + 10)});
  });
  auto result = get_json("/containers/json?all=1");
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_TRUE(result.value().body.is_array());
  EXPECT_EQ(result.value().body.size(), 2u);
  EXPECT_EQ(result.value().body[0]["Names"][0], "/kilntainer-1");
}

TEST_F(ClientTest, KeepAliveResponseCompletesWithoutClose) {
  // The engine keeps the connection open (HTTP/1.1 keep-alive); the client must finish at the
  // end of the message, not wait for a close.
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(http_response(200, "OK", R"({"ok":true})",
                                  "Connection: keep-alive\r\nContent-Type: application/json\r\n"));
    connection.peer_closed(5s);  // the client closes its side
  });
  const auto start = std::chrono::steady_clock::now();
  auto result = get_json("/info");
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result.value().body["ok"], true);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(ClientTest, NoContentHasNoBody) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send("HTTP/1.1 204 No Content\r\nApi-Version: 1.41\r\n\r\n");
    connection.peer_closed(5s);
  });
  Outcome<Result<JsonResponse>> outcome;
  client_->post_json("/containers/abc/start", std::nullopt, outcome.callback());
  auto* result = outcome.get();
  ASSERT_NE(result, nullptr);
  ASSERT_TRUE(*result) << result->error().message;
  EXPECT_EQ(result->value().status, 204);
  EXPECT_TRUE(result->value().body.is_null());
}

TEST_F(ClientTest, NotModifiedIsSuccess) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send("HTTP/1.1 304 Not Modified\r\n\r\n");
    connection.peer_closed(5s);
  });
  Outcome<Result<JsonResponse>> outcome;
  client_->post_json("/containers/abc/stop?t=2", std::nullopt, outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_TRUE(*outcome.get());
  EXPECT_EQ(outcome.get()->value().status, 304);
}

TEST_F(ClientTest, ErrorJsonBecomesEngineMessage) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(http_response(404, "Not Found", R"({"message":"No such container: nope"})"));
  });
  Outcome<Result<JsonResponse>> outcome;
  client_->delete_json("/containers/nope?force=1", outcome.callback());
  auto* result = outcome.get();
  ASSERT_NE(result, nullptr);
  ASSERT_FALSE(*result);
  EXPECT_EQ(result->error().kind, EngineErrorKind::kHttpStatus);
  EXPECT_EQ(result->error().http_status, 404);
  EXPECT_EQ(result->error().engine_message, "No such container: nope");
  EXPECT_EQ(result->error().message, "engine answered 404: No such container: nope");
}

TEST_F(ClientTest, RawRequestKeepsErrorStatusAsResponse) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(http_response(409, "Conflict", R"({"message":"name in use"})"));
  });
  Outcome<Result<HttpResponse>> outcome;
  HttpRequest request;
  request.target = "/anything";
  client_->request(request, outcome.callback());
  auto* result = outcome.get();
  ASSERT_NE(result, nullptr);
  ASSERT_TRUE(*result);
  EXPECT_EQ(result->value().status, 409);
  EXPECT_EQ(result->value().reason, "Conflict");
  EXPECT_EQ(result->value().headers.find("CONTENT-TYPE"), "application/json");
}

TEST_F(ClientTest, BodyUntilCloseAndTruncatedBody) {
  serve([](FakeConnection& connection) {
    const auto request = connection.read_request();
    if (request.target == "/v1.41/until-close") {
      connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[1,2,");
      std::this_thread::sleep_for(20ms);
      connection.send("3]");
    } else {
      connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"cut\":");
    }
    connection.close();
  });
  auto until_close = get_json("/until-close");
  ASSERT_TRUE(until_close) << until_close.error().message;
  EXPECT_EQ(until_close.value().body, nlohmann::json::parse("[1,2,3]"));

  auto truncated = get_json("/truncated");
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().kind, EngineErrorKind::kTransport);
  EXPECT_EQ(truncated.error().message,
            "the engine closed the connection in the middle of the response body");
}

TEST_F(ClientTest, GarbageIsAProtocolError) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send("SSH-2.0-OpenSSH_9.2\r\n");
    connection.peer_closed(2s);
  });
  auto result = get_json("/version");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, EngineErrorKind::kProtocol);
  EXPECT_NE(result.error().message.find("invalid HTTP from the engine"), std::string::npos)
      << result.error().message;
}

TEST_F(ClientTest, ClosedWithoutAnswer) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.close();
  });
  auto result = get_json("/version");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, EngineErrorKind::kTransport);
  EXPECT_EQ(result.error().message,
            "the engine closed the connection before sending a complete response");
}

TEST_F(ClientTest, RequestTimeout) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.peer_closed(5s);  // never answers; sees the client give up
  });
  RequestOptions deadlines;
  deadlines.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  auto result = get_json("/containers/json", deadlines);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, EngineErrorKind::kTimeout);
  EXPECT_EQ(result.error().message, "timed out after 200 ms");
  EXPECT_GE(took, 190ms);
  EXPECT_LT(took, 3s);
}

TEST_F(ClientTest, ConnectionRefusedAndMissingSocket) {
  // A socket file nobody listens on: bound, then the listener is gone.
  char pattern[] = "/tmp/vc-engine-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string dead = dir + "/dead.sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, dead.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::close(fd);

  EngineClient refused(loop_, EngineAddress::parse("unix://" + dead).value());
  Outcome<Result<EngineInfo>> refused_outcome;
  refused.negotiate(refused_outcome.callback());
  ASSERT_NE(refused_outcome.get(), nullptr);
  ASSERT_FALSE(*refused_outcome.get());
  EXPECT_EQ(refused_outcome.get()->error().kind, EngineErrorKind::kConnect);
  EXPECT_EQ(refused_outcome.get()->error().uv_code, UV_ECONNREFUSED);
  EXPECT_EQ(refused_outcome.get()->error().message, "connection refused");

  EngineClient missing(loop_, EngineAddress::parse("unix://" + dir + "/missing.sock").value());
  Outcome<Result<EngineInfo>> missing_outcome;
  missing.negotiate(missing_outcome.callback());
  ASSERT_NE(missing_outcome.get(), nullptr);
  ASSERT_FALSE(*missing_outcome.get());
  EXPECT_EQ(missing_outcome.get()->error().kind, EngineErrorKind::kConnect);
  EXPECT_EQ(missing_outcome.get()->error().message, "no such file or directory");
  std::filesystem::remove_all(dir);
}

TEST_F(ClientTest, LongPollReportsHeadersThenBodyAndCancels) {
  auto release = std::make_shared<std::promise<void>>();
  serve([release](FakeConnection& connection) {
    const auto request = connection.read_request();
    // Like /wait: the head is flushed at once, the body when the container exits.
    connection.send(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    if (request.target.find("cancel-me") != std::string::npos) {
      connection.peer_closed(5s);
      return;
    }
    release->get_future().wait_for(5s);
    connection.send(chunked({R"({"Error":null,"StatusCode":137})"}));
  });
  Outcome<int> headers;
  Outcome<Result<JsonResponse>> done;
  client_->long_poll_json("POST", "/containers/abc/wait?condition=next-exit", std::nullopt,
                          headers.callback(), done.callback());
  ASSERT_NE(headers.get(), nullptr);
  EXPECT_EQ(*headers.get(), 200);
  EXPECT_EQ(done.get(150ms), nullptr);  // no body yet, and no deadline
  release->set_value();
  ASSERT_NE(done.get(), nullptr);
  ASSERT_TRUE(*done.get());
  EXPECT_EQ(done.get()->value().body["StatusCode"], 137);

  Outcome<int> cancel_headers;
  Outcome<Result<JsonResponse>> cancelled;
  RequestHandle handle = client_->long_poll_json("POST", "/containers/cancel-me/wait", std::nullopt,
                                                 cancel_headers.callback(), cancelled.callback());
  ASSERT_NE(cancel_headers.get(), nullptr);
  handle.cancel();
  handle.cancel();  // idempotent
  ASSERT_NE(cancelled.get(), nullptr);
  ASSERT_FALSE(*cancelled.get());
  EXPECT_EQ(cancelled.get()->error().kind, EngineErrorKind::kCancelled);
}

TEST_F(ClientTest, StreamLinesSplitAcrossChunksAndReads) {
  serve([](FakeConnection& connection) {
    const auto request = connection.read_request();
    if (request.target.find("missing") != std::string::npos) {
      connection.send(
          http_response(404, "Not Found", R"({"message":"pull access denied for missing"})"));
      return;
    }
    connection.send(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    // Lines cut across chunks, and chunks cut across reads.
    const std::string body = chunked({"{\"status\":\"Pulling from library/deb",
                                      "ian\"}\n{\"status\":\"Downloading\",\"progress",
                                      "Detail\":{\"current\":5}}\n", "{\"status\":\"Done\"}"});
    connection.send_pieces({body.substr(0, 17), body.substr(17, 30), body.substr(47)});
  });
  std::vector<std::string> lines;  // loop thread until on_done
  Outcome<Result<int>> done;
  HttpRequest request;
  request.method = "POST";
  request.target = "/images/create?fromImage=debian&tag=bookworm-slim";
  client_->stream_lines(
      request, [&lines](std::string_view line) { lines.emplace_back(line); }, done.callback());
  ASSERT_NE(done.get(), nullptr);
  ASSERT_TRUE(*done.get()) << done.get()->error().message;
  EXPECT_EQ(done.get()->value(), 200);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["status"], "Pulling from library/debian");
  EXPECT_EQ(nlohmann::json::parse(lines[1])["progressDetail"]["current"], 5);
  EXPECT_EQ(nlohmann::json::parse(lines[2])["status"], "Done");

  std::vector<std::string> no_lines;
  Outcome<Result<int>> failed;
  request.target = "/images/create?fromImage=missing";
  client_->stream_lines(
      request, [&no_lines](std::string_view line) { no_lines.emplace_back(line); },
      failed.callback());
  ASSERT_NE(failed.get(), nullptr);
  ASSERT_FALSE(*failed.get());
  EXPECT_EQ(failed.get()->error().http_status, 404);
  EXPECT_EQ(failed.get()->error().engine_message, "pull access denied for missing");
  EXPECT_TRUE(no_lines.empty());
}

TEST_F(ClientTest, NegotiateDocker) {
  serve([](FakeConnection& connection) {
    const auto request = connection.read_request();
    if (request.target == "/_ping") {
      connection.send(http_response(200, "OK", "OK",
                                    "Api-Version: 1.41\r\nServer: Docker/20.10.24+dfsg1 "
                                    "(linux)\r\nContent-Type: text/plain; charset=utf-8\r\n"));
    } else if (request.target == "/v1.41/version") {
      connection.send(http_response(
          200, "OK",
          R"({"Version":"20.10.24+dfsg1","ApiVersion":"1.41","MinAPIVersion":"1.12","Os":"linux","Arch":"amd64"})"));
    } else {
      connection.send(http_response(404, "Not Found", R"({"message":"page not found"})"));
    }
  });
  Outcome<Result<EngineInfo>> outcome;
  EXPECT_FALSE(client_->info());
  client_->negotiate(outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_TRUE(*outcome.get()) << outcome.get()->error().message;
  const EngineInfo& info = outcome.get()->value();
  EXPECT_EQ(info.api_version, "1.41");
  EXPECT_EQ(info.engine_api_version, "1.41");
  EXPECT_EQ(info.version, "20.10.24+dfsg1");
  EXPECT_EQ(info.min_api_version, "1.12");
  EXPECT_EQ(info.server, "Docker/20.10.24+dfsg1 (linux)");
  EXPECT_FALSE(info.is_podman);
  ASSERT_TRUE(client_->info());
  EXPECT_EQ(client_->api_prefix(), "/v1.41");
  EXPECT_EQ(client_->api_target("/containers/json"), "/v1.41/containers/json");
}

TEST_F(ClientTest, NegotiatePodmanAndNewerEngine) {
  serve([](FakeConnection& connection) {
    const auto request = connection.read_request();
    if (request.target == "/_ping") {
      connection.send(http_response(
          200, "OK", "OK",
          "Api-Version: 1.43\r\nLibpod-Api-Version: 4.3.1\r\nServer: Libpod/4.3.1 (linux)\r\n"));
    } else {
      // Podman's slow /version is never asked for: the ping names the version.
      ADD_FAILURE() << "unexpected request " << request.target;
      connection.send(http_response(404, "Not Found", "{}"));
    }
  });
  Outcome<Result<EngineInfo>> outcome;
  client_->negotiate(outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_TRUE(*outcome.get()) << outcome.get()->error().message;
  EXPECT_TRUE(outcome.get()->value().is_podman);
  EXPECT_EQ(outcome.get()->value().libpod_api_version, "4.3.1");
  EXPECT_EQ(outcome.get()->value().api_version, "1.41");
  EXPECT_EQ(outcome.get()->value().engine_api_version, "1.43");
  EXPECT_EQ(outcome.get()->value().version, "4.3.1");
  EXPECT_EQ(outcome.get()->value().os, "linux");
}

TEST_F(ClientTest, NegotiateRefusesOldEngine) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(http_response(200, "OK", "OK", "Api-Version: 1.40\r\n"));
  });
  Outcome<Result<EngineInfo>> outcome;
  client_->negotiate(outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_FALSE(*outcome.get());
  EXPECT_EQ(outcome.get()->error().kind, EngineErrorKind::kIncompatible);
  EXPECT_EQ(outcome.get()->error().message,
            "engine API version 1.40 is older than 1.41, the oldest this server supports; upgrade "
            "the engine");
  EXPECT_EQ(engine_->connections(), 1);  // /version was never asked
}

TEST_F(ClientTest, NegotiateRejectsANonEngineSocket) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(http_response(200, "OK", "hello", "Content-Type: text/plain\r\n"));
  });
  Outcome<Result<EngineInfo>> outcome;
  client_->negotiate(outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_FALSE(*outcome.get());
  EXPECT_EQ(outcome.get()->error().kind, EngineErrorKind::kProtocol);
}

TEST_F(ClientTest, InvalidRequestCompletesOnTheCallingThread) {
  serve(nullptr);
  Outcome<Result<HttpResponse>> outcome;
  HttpRequest request;
  request.target = "/x\r\nInjected: 1";
  RequestHandle handle = client_->request(request, outcome.callback());
  ASSERT_NE(outcome.get(0ms), nullptr);
  EXPECT_EQ(outcome.get(0ms)->error().kind, EngineErrorKind::kInvalidArgument);
  EXPECT_FALSE(handle.valid());
  handle.cancel();  // harmless
}

TEST_F(ClientTest, HeadResponseHasNoBody) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    // A HEAD answer announces a length but sends no body.
    connection.send("HTTP/1.1 200 OK\r\nApi-Version: 1.41\r\nContent-Length: 2\r\n\r\n");
    connection.peer_closed(5s);
  });
  Outcome<Result<HttpResponse>> outcome;
  HttpRequest request;
  request.method = "HEAD";
  request.target = "/_ping";
  client_->request(request, outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_TRUE(*outcome.get()) << outcome.get()->error().message;
  EXPECT_EQ(outcome.get()->value().headers.find("api-version"), "1.41");
  EXPECT_TRUE(outcome.get()->value().body.empty());
}

TEST_F(ClientTest, ManyConcurrentRequestsFromManyThreads) {
  serve([](FakeConnection& connection) {
    const auto request = connection.read_request();
    std::this_thread::sleep_for(5ms);
    connection.send(http_response(200, "OK", nlohmann::json{{"target", request.target}}.dump()));
  });
  constexpr int kThreads = 4;
  constexpr int kPerThread = 10;
  std::vector<std::unique_ptr<Outcome<Result<JsonResponse>>>> outcomes(kThreads * kPerThread);
  for (auto& outcome : outcomes) outcome = std::make_unique<Outcome<Result<JsonResponse>>>();
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int n = t * kPerThread + i;
        client_->get_json("/containers/c" + std::to_string(n) + "/json",
                          outcomes[static_cast<std::size_t>(n)]->callback());
      }
    });
  }
  for (auto& caller : callers) caller.join();
  for (int n = 0; n < kThreads * kPerThread; ++n) {
    auto* result = outcomes[static_cast<std::size_t>(n)]->get();
    ASSERT_NE(result, nullptr) << n;
    ASSERT_TRUE(*result) << result->error().message;
    EXPECT_EQ(result->value().body["target"], "/v1.41/containers/c" + std::to_string(n) + "/json");
  }
  EXPECT_EQ(engine_->connections(), kThreads * kPerThread);  // one connection per request
}

TEST(ClientTcp, LoopbackTcpAddress) {
  auto engine = FakeEngine::on_loopback_tcp([](FakeConnection& connection) {
    const auto request = connection.read_request();
    connection.send(
        http_response(200, "OK", nlohmann::json{{"host", *request.headers.find("host")}}.dump()));
  });
  EngineLoop loop;
  auto address = EngineAddress::parse(engine->address()).value();
  EngineClient client(loop, address);
  Outcome<Result<JsonResponse>> outcome;
  client.get_json("/info", outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_TRUE(*outcome.get()) << outcome.get()->error().message;
  EXPECT_EQ(outcome.get()->value().body["host"], address.host_header());
}

TEST(ClientTcp, LocalhostNameIsResolved) {
  auto engine = FakeEngine::on_loopback_tcp([](FakeConnection& connection) {
    connection.read_request();
    connection.send(http_response(200, "OK", "{}"));
  });
  EngineLoop loop;
  const std::string port = engine->address().substr(engine->address().rfind(':') + 1);
  EngineClient client(loop, EngineAddress::parse("tcp://localhost:" + port).value());
  Outcome<Result<JsonResponse>> outcome;
  client.get_json("/info", outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_TRUE(*outcome.get()) << outcome.get()->error().message;
}

TEST(ClientTcp, RefusedTcpPort) {
  // Find a free port, then close it again: nothing listens there.
  std::string address;
  {
    auto engine = FakeEngine::on_loopback_tcp(nullptr);
    address = engine->address();
  }
  EngineLoop loop;
  EngineClient client(loop, EngineAddress::parse(address).value());
  Outcome<Result<JsonResponse>> outcome;
  client.get_json("/info", outcome.callback());
  ASSERT_NE(outcome.get(), nullptr);
  ASSERT_FALSE(*outcome.get());
  EXPECT_EQ(outcome.get()->error().kind, EngineErrorKind::kConnect);
  EXPECT_EQ(outcome.get()->error().message, "connection refused");
}

}  // namespace
}  // namespace vc::engine
