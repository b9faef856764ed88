// codec_test.cpp — the pure pieces: frame demuxer, line splitter, URL encoding, request writer,
// engine error messages, version comparison.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "fake_engine.h"
#include "json_response.h"
#include "ndjson_splitter.h"
#include "negotiation.h"
#include "request_writer.h"
#include "vc_engine/stream_demuxer.h"
#include "vc_engine/url.h"

namespace vc::engine {
namespace {

using testing::frame;

struct Collected {
  std::string out;
  std::string err;
  int calls = 0;
  StreamDemuxer::FrameCallback callback() {
    return [this](StreamKind stream, std::string_view bytes) {
      ++calls;
      (stream == StreamKind::kStdout ? out : err).append(bytes);
    };
  }
};

TEST(StreamDemuxer, ManyFramesInOneRead) {
  StreamDemuxer demuxer(true);
  Collected seen;
  const std::string bytes =
      frame(1, "hello ") + frame(2, "oops\n") + frame(1, "world") + frame(3, "sys");
  ASSERT_TRUE(demuxer.feed(bytes, seen.callback()));
  EXPECT_EQ(seen.out, "hello world");
  EXPECT_EQ(seen.err, "oops\nsys");
  EXPECT_TRUE(demuxer.at_frame_boundary());
  EXPECT_EQ(demuxer.payload_bytes(), 19u);
}

TEST(StreamDemuxer, EverySplitPoint) {
  const std::string bytes =
      frame(1, "stdout bytes") + frame(2, "stderr") + frame(1, "") + frame(1, "!");
  for (std::size_t cut1 = 0; cut1 <= bytes.size(); ++cut1) {
    for (std::size_t cut2 = cut1; cut2 <= bytes.size(); cut2 += 3) {
      StreamDemuxer demuxer(true);
      Collected seen;
      ASSERT_TRUE(demuxer.feed(bytes.substr(0, cut1), seen.callback()));
      ASSERT_TRUE(demuxer.feed(bytes.substr(cut1, cut2 - cut1), seen.callback()));
      ASSERT_TRUE(demuxer.feed(bytes.substr(cut2), seen.callback()));
      EXPECT_EQ(seen.out, "stdout bytes!") << cut1 << "/" << cut2;
      EXPECT_EQ(seen.err, "stderr");
      EXPECT_TRUE(demuxer.at_frame_boundary());
    }
  }
}

TEST(StreamDemuxer, ByteByByteHeaderAndPayload) {
  const std::string bytes = frame(2, std::string(70000, 'x')) + frame(1, "tail");
  StreamDemuxer demuxer(true);
  Collected seen;
  for (char c : bytes.substr(0, 20))
    ASSERT_TRUE(demuxer.feed(std::string_view(&c, 1), seen.callback()));
  EXPECT_FALSE(demuxer.at_frame_boundary());
  ASSERT_TRUE(demuxer.feed(bytes.substr(20), seen.callback()));
  EXPECT_EQ(seen.err.size(), 70000u);
  EXPECT_EQ(seen.out, "tail");
  EXPECT_TRUE(demuxer.at_frame_boundary());
}

TEST(StreamDemuxer, PartialHeaderIsNotABoundary) {
  StreamDemuxer demuxer(true);
  Collected seen;
  ASSERT_TRUE(demuxer.feed(frame(1, "abc").substr(0, 5), seen.callback()));
  EXPECT_FALSE(demuxer.at_frame_boundary());
  EXPECT_EQ(seen.calls, 0);
}

TEST(StreamDemuxer, RejectsUnframedBytes) {
  StreamDemuxer demuxer(true);
  Collected seen;
  EXPECT_FALSE(demuxer.feed("hello from a tty\n", seen.callback()));
  EXPECT_FALSE(demuxer.feed(frame(1, "later"), seen.callback()));  // stays broken
  EXPECT_EQ(seen.calls, 0);
}

TEST(StreamDemuxer, TtyPassesBytesThrough) {
  StreamDemuxer demuxer(false);
  Collected seen;
  ASSERT_TRUE(demuxer.feed("out\r\nerr\r\n", seen.callback()));
  EXPECT_EQ(seen.out, "out\r\nerr\r\n");
  EXPECT_TRUE(demuxer.at_frame_boundary());
}

TEST(NdjsonSplitter, SplitLinesAcrossPieces) {
  detail::NdjsonSplitter splitter;
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  splitter.feed("{\"status\":\"Pull", collect);
  splitter.feed("ing\"}\r\n\n{\"a\":1}\n{\"b\"", collect);
  EXPECT_EQ(splitter.pending(), 4u);
  splitter.feed(":2}\n{\"last\":true}", collect);
  splitter.finish(collect);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"status\":\"Pulling\"}", "{\"a\":1}", "{\"b\":2}",
                                             "{\"last\":true}"}));
}

TEST(Url, EncodeAndQuery) {
  EXPECT_EQ(url_encode("debian:bookworm-slim"), "debian%3Abookworm-slim");
  EXPECT_EQ(url_encode("a/b c~_.-"), "a%2Fb%20c~_.-");
  EXPECT_EQ(url_encode("\xC3\xA9"), "%C3%A9");
  EXPECT_EQ(query_target("/containers/json", {{"all", "1"}, {"filters", R"({"label":["x"]})"}}),
            "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22x%22%5D%7D");
  EXPECT_EQ(query_target("/_ping", {}), "/_ping");
}

TEST(RequestWriter, WritesHostLengthAndConnection) {
  HttpRequest request;
  request.method = "POST";
  request.target = "/v1.41/containers/create?name=x";
  request.content_type = "application/json";
  request.body = "{}";
  request.headers.add("X-Registry-Auth", "e30=");
  auto address = EngineAddress::parse("unix:///run/e.sock").value();
  auto bytes = detail::write_request(request, address, "vc-test", detail::ConnectionMode::kClose);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(
      bytes.value(),
      "POST /v1.41/containers/create?name=x HTTP/1.1\r\nHost: docker\r\nUser-Agent: vc-test\r\n"
      "Content-Type: application/json\r\nContent-Length: 2\r\nx-registry-auth: e30=\r\n"
      "Connection: close\r\n\r\n{}");

  HttpRequest empty_post;
  empty_post.method = "POST";
  empty_post.target = "/v1.41/containers/x/start";
  auto start = detail::write_request(empty_post, address, "", detail::ConnectionMode::kUpgrade);
  ASSERT_TRUE(start);
  EXPECT_NE(start.value().find("Content-Length: 0\r\n"), std::string::npos);
  EXPECT_NE(start.value().find("Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n"), std::string::npos);

  HttpRequest get;
  auto get_bytes = detail::write_request(get, address, "", detail::ConnectionMode::kClose);
  ASSERT_TRUE(get_bytes);
  EXPECT_EQ(get_bytes.value().find("Content-Length"), std::string::npos);
}

TEST(RequestWriter, RefusesHeaderInjection) {
  auto address = EngineAddress::parse("/run/e.sock").value();
  HttpRequest request;
  request.target = "/x\r\nEvil: 1";
  auto bytes = detail::write_request(request, address, "", detail::ConnectionMode::kClose);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().kind, EngineErrorKind::kInvalidArgument);
  request.target = "/x";
  request.headers.add("X-A", "1\nEvil: 2");
  EXPECT_FALSE(detail::write_request(request, address, "", detail::ConnectionMode::kClose));
  HttpRequest relative;
  relative.target = "containers/json";
  EXPECT_FALSE(detail::write_request(relative, address, "", detail::ConnectionMode::kClose));
}

TEST(EngineMessages, FromDockerPodmanAndText) {
  HttpResponse docker;
  docker.status = 404;
  docker.reason = "Not Found";
  docker.body = R"({"message":"No such container: nope"})";
  EngineError error = detail::http_status_error(docker);
  EXPECT_EQ(error.kind, EngineErrorKind::kHttpStatus);
  EXPECT_EQ(error.http_status, 404);
  EXPECT_EQ(error.engine_message, "No such container: nope");
  EXPECT_EQ(error.message, "engine answered 404: No such container: nope");

  HttpResponse podman;
  podman.status = 500;
  podman.body =
      R"({"cause":"container state improper","message":"can only kill running containers","response":500})";
  EXPECT_EQ(detail::engine_message_of(podman), "can only kill running containers");

  HttpResponse text;
  text.status = 400;
  text.body = "Bad Request: missing required Host header\n";
  EXPECT_EQ(detail::engine_message_of(text), "Bad Request: missing required Host header");

  HttpResponse empty;
  empty.status = 503;
  empty.reason = "Service Unavailable";
  EXPECT_EQ(detail::http_status_error(empty).message, "engine answered 503: Service Unavailable");
}

TEST(JsonResponse, Bodies) {
  HttpResponse no_content;
  no_content.status = 204;
  auto json = detail::to_json_response(no_content);
  ASSERT_TRUE(json);
  EXPECT_TRUE(json.value().body.is_null());

  HttpResponse ok_text;
  ok_text.status = 200;
  ok_text.headers.add("Content-Type", "text/plain; charset=utf-8");
  ok_text.body = "OK";
  json = detail::to_json_response(ok_text);
  ASSERT_TRUE(json);
  EXPECT_EQ(json.value().body, "OK");

  HttpResponse broken;
  broken.status = 200;
  broken.headers.add("Content-Type", "application/json");
  broken.body = "{\"Id\":";
  json = detail::to_json_response(broken);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().kind, EngineErrorKind::kProtocol);
}

TEST(ApiVersions, Compare) {
  EXPECT_EQ(detail::compare_api_versions("1.41", "1.41"), 0);
  EXPECT_EQ(detail::compare_api_versions("1.9", "1.41"), -1);
  EXPECT_EQ(detail::compare_api_versions("1.45", "1.41"), 1);
  EXPECT_EQ(detail::compare_api_versions("2.0", "1.99"), 1);
  EXPECT_FALSE(detail::compare_api_versions("1", "1.41"));
  EXPECT_FALSE(detail::compare_api_versions("1.x", "1.41"));
}

}  // namespace
}  // namespace vc::engine
