// exec_stream_test.cpp — the exec hijack against a fake engine: 101 and 200 raw streams, frames
// split across reads, stdin and half-close, refusals, abort, deadlines.
#include <gtest/gtest.h>

#include <thread>

#include "fake_engine.h"
#include "vc_engine/engine_client.h"

namespace vc::engine {
namespace {

using namespace std::chrono_literals;
using testing::FakeConnection;
using testing::FakeEngine;
using testing::frame;
using testing::http_response;
using testing::Outcome;

constexpr const char* kUpgraded =
    "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: "
    "Upgrade\r\n"
    "Upgrade: tcp\r\nApi-Version: 1.41\r\n\r\n";

// What an exec stream delivered; filled on the loop thread, read after on_end.
struct Transcript {
  std::string out;
  std::string err;
  int started_status = 0;
  int output_calls = 0;
};

class ExecTest : public ::testing::Test {
 protected:
  void serve(FakeEngine::Script script) {
    engine_ = FakeEngine::on_unix_socket(std::move(script));
    client_ =
        std::make_unique<EngineClient>(loop_, EngineAddress::parse(engine_->address()).value());
  }

  // Callbacks that record into `transcript` and finish `end`.
  ExecStreamCallbacks record(const std::shared_ptr<Transcript>& transcript,
                             Outcome<Result<void>>& end) {
    ExecStreamCallbacks callbacks;
    callbacks.on_started = [transcript](int status) { transcript->started_status = status; };
    callbacks.on_output = [transcript](StreamKind stream, std::string_view bytes) {
      ++transcript->output_calls;
      (stream == StreamKind::kStdout ? transcript->out : transcript->err).append(bytes);
    };
    callbacks.on_end = end.callback();
    return callbacks;
  }

  EngineLoop loop_;
  std::unique_ptr<FakeEngine> engine_;
  std::unique_ptr<EngineClient> client_;
};

TEST_F(ExecTest, UpgradeWithLeftoverBytesSplitFramesAndStdinRoundTrip) {
  auto request_seen = std::make_shared<FakeConnection::Request>();
  auto stdin_seen = std::make_shared<std::string>();
  serve([request_seen, stdin_seen](FakeConnection& connection) {
    *request_seen = connection.read_request();
    // The head and the first frames in ONE write, ending inside a frame header.
    const std::string next = frame(1, "second\n");
    connection.send(std::string(kUpgraded) + frame(1, "first\n") + frame(2, "warn\n") +
                    next.substr(0, 3));
    std::this_thread::sleep_for(20ms);
    connection.send_pieces({next.substr(3, 4), next.substr(7, 2), next.substr(9)});
    // Echo stdin once the client half-closes: proves the shutdown reached us as EOF.
    *stdin_seen = connection.read_until_eof();
    connection.send(frame(1, *stdin_seen) + frame(2, "done-on-stderr\n"));
    connection.close();
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  auto stream = client_->start_exec("971c", ExecStartOptions{}, record(transcript, end));
  // Written before the engine accepted: queued, then sent after the 101.
  stream->write_stdin("hello stdin line1\n");
  stream->write_stdin("line2\ttab é no newline");
  stream->close_stdin();
  stream->close_stdin();  // idempotent
  auto* result = end.get();
  ASSERT_NE(result, nullptr);
  ASSERT_TRUE(*result) << result->error().message;
  EXPECT_EQ(transcript->started_status, 101);
  EXPECT_EQ(*stdin_seen, "hello stdin line1\nline2\ttab é no newline");
  EXPECT_EQ(transcript->out, "first\nsecond\nhello stdin line1\nline2\ttab é no newline");
  EXPECT_EQ(transcript->err, "warn\ndone-on-stderr\n");
  EXPECT_EQ(stream->output_bytes(), transcript->out.size() + transcript->err.size());

  EXPECT_EQ(request_seen->method, "POST");
  EXPECT_EQ(request_seen->target, "/v1.41/exec/971c/start");
  EXPECT_EQ(request_seen->headers.find("connection"), "Upgrade");
  EXPECT_EQ(request_seen->headers.find("upgrade"), "tcp");
  EXPECT_EQ(request_seen->headers.find("host"), "docker");
  EXPECT_EQ(nlohmann::json::parse(request_seen->body),
            nlohmann::json::parse(R"({"Detach":false,"Tty":false})"));
}

TEST_F(ExecTest, StdinWrittenAfterStartAndLarge) {
  auto received = std::make_shared<std::size_t>(0);
  serve([received](FakeConnection& connection) {
    connection.read_request();
    connection.send(kUpgraded);
    const std::string all = connection.read_until_eof();
    *received = all.size();
    connection.send(frame(1, std::to_string(all.size())));
    connection.close();
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  auto callbacks = record(transcript, end);
  const std::string big(3 * 1024 * 1024 + 7, 'z');
  std::promise<ExecStream*> stream_ready;
  std::shared_future<ExecStream*> stream_future = stream_ready.get_future().share();
  // Write from the loop thread, inside on_started, as a plugin reacting to the start would.
  // (on_started may run before start_exec() has returned the stream to this thread.)
  callbacks.on_started = [stream_future, &big, transcript](int status) {
    transcript->started_status = status;
    ExecStream* stream = stream_future.get();
    stream->write_stdin(big);
    stream->close_stdin();
  };
  std::unique_ptr<ExecStream> stream =
      client_->start_exec("big", ExecStartOptions{}, std::move(callbacks));
  stream_ready.set_value(stream.get());
  auto* result = end.get();
  ASSERT_NE(result, nullptr);
  ASSERT_TRUE(*result) << result->error().message;
  EXPECT_EQ(*received, big.size());
  EXPECT_EQ(transcript->out, std::to_string(big.size()));
}

TEST_F(ExecTest, RawStreamWithout101) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n" +
                    frame(1, "a") + frame(2, "b"));
    std::this_thread::sleep_for(10ms);
    connection.send(frame(1, "c"));
    connection.close();
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  auto stream = client_->start_exec("e", ExecStartOptions{}, record(transcript, end));
  ASSERT_NE(end.get(), nullptr);
  ASSERT_TRUE(*end.get()) << end.get()->error().message;
  EXPECT_EQ(transcript->started_status, 200);
  EXPECT_EQ(transcript->out, "ac");
  EXPECT_EQ(transcript->err, "b");
}

TEST_F(ExecTest, TtyStreamIsUnframed) {
  auto request_body = std::make_shared<std::string>();
  serve([request_body](FakeConnection& connection) {
    *request_body = connection.read_request().body;
    connection.send(std::string(kUpgraded) + "out\r\nerr\r\n");
    connection.close();
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  ExecStartOptions options;
  options.tty = true;
  auto stream = client_->start_exec("t", options, record(transcript, end));
  ASSERT_NE(end.get(), nullptr);
  ASSERT_TRUE(*end.get()) << end.get()->error().message;
  EXPECT_EQ(transcript->out, "out\r\nerr\r\n");
  EXPECT_EQ(nlohmann::json::parse(*request_body)["Tty"], true);
}

TEST_F(ExecTest, RefusedStart) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(
        http_response(409, "Conflict", R"({"message":"Container abc is not running"})"));
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  auto stream = client_->start_exec("x", ExecStartOptions{}, record(transcript, end));
  stream->write_stdin("never sent");
  ASSERT_NE(end.get(), nullptr);
  ASSERT_FALSE(*end.get());
  EXPECT_EQ(end.get()->error().kind, EngineErrorKind::kHttpStatus);
  EXPECT_EQ(end.get()->error().http_status, 409);
  EXPECT_EQ(end.get()->error().message, "engine answered 409: Container abc is not running");
  EXPECT_EQ(transcript->started_status, 0);
}

TEST_F(ExecTest, AbortClosesTheConnection) {
  auto peer_closed = std::make_shared<std::promise<bool>>();
  serve([peer_closed](FakeConnection& connection) {
    connection.read_request();
    connection.send(std::string(kUpgraded) + frame(1, "tick\n"));
    peer_closed->set_value(connection.peer_closed(5s));
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  auto callbacks = record(transcript, end);
  std::unique_ptr<ExecStream> stream;
  std::promise<void> first_output;
  callbacks.on_output = [&first_output, transcript](StreamKind, std::string_view bytes) {
    transcript->out.append(bytes);
    first_output.set_value();
  };
  stream = client_->start_exec("x", ExecStartOptions{}, std::move(callbacks));
  ASSERT_EQ(first_output.get_future().wait_for(5s), std::future_status::ready);
  stream->abort();
  stream->abort();
  ASSERT_NE(end.get(), nullptr);
  ASSERT_FALSE(*end.get());
  EXPECT_EQ(end.get()->error().kind, EngineErrorKind::kCancelled);
  EXPECT_TRUE(peer_closed->get_future().get());
  stream->write_stdin("after the end: dropped");
}

TEST_F(ExecTest, UnframedBytesWhenFramesWereExpected) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(std::string(kUpgraded) + "plain text from a tty\n");
    connection.peer_closed(5s);
  });
  Outcome<Result<void>> end;
  auto stream =
      client_->start_exec("x", ExecStartOptions{}, record(std::make_shared<Transcript>(), end));
  ASSERT_NE(end.get(), nullptr);
  ASSERT_FALSE(*end.get());
  EXPECT_EQ(end.get()->error().kind, EngineErrorKind::kProtocol);
  EXPECT_NE(end.get()->error().message.find("Tty:true"), std::string::npos);
}

TEST_F(ExecTest, EofInsideAFrame) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(std::string(kUpgraded) + frame(1, "0123456789").substr(0, 11));
    connection.close();
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  auto stream = client_->start_exec("x", ExecStartOptions{}, record(transcript, end));
  ASSERT_NE(end.get(), nullptr);
  ASSERT_FALSE(*end.get());
  EXPECT_EQ(end.get()->error().kind, EngineErrorKind::kProtocol);
  EXPECT_EQ(end.get()->error().message,
            "the engine closed the exec stream in the middle of an output frame");
  EXPECT_EQ(transcript->out, "012");  // what did arrive was delivered
}

TEST_F(ExecTest, StreamDeadline) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    connection.send(kUpgraded);
    connection.peer_closed(5s);
  });
  Outcome<Result<void>> end;
  ExecStartOptions options;
  options.deadlines.timeout = 150ms;
  auto stream = client_->start_exec("x", options, record(std::make_shared<Transcript>(), end));
  ASSERT_NE(end.get(), nullptr);
  ASSERT_FALSE(*end.get());
  EXPECT_EQ(end.get()->error().kind, EngineErrorKind::kTimeout);
  EXPECT_EQ(end.get()->error().message, "timed out after 150 ms");
}

TEST_F(ExecTest, DroppedStreamRunsToTheEnd) {
  serve([](FakeConnection& connection) {
    connection.read_request();
    std::this_thread::sleep_for(50ms);
    connection.send(std::string(kUpgraded) + frame(1, "still delivered"));
    connection.close();
  });
  auto transcript = std::make_shared<Transcript>();
  Outcome<Result<void>> end;
  client_->start_exec("x", ExecStartOptions{}, record(transcript, end)).reset();
  ASSERT_NE(end.get(), nullptr);
  ASSERT_TRUE(*end.get());
  EXPECT_EQ(transcript->out, "still delivered");
}

TEST_F(ExecTest, ConnectFailureEndsTheStream) {
  EngineClient nowhere(loop_, EngineAddress::parse("unix:///nonexistent-dir/engine.sock").value());
  Outcome<Result<void>> end;
  auto stream =
      nowhere.start_exec("x", ExecStartOptions{}, record(std::make_shared<Transcript>(), end));
  ASSERT_NE(end.get(), nullptr);
  ASSERT_FALSE(*end.get());
  EXPECT_EQ(end.get()->error().kind, EngineErrorKind::kConnect);
  EXPECT_EQ(end.get()->error().message, "no such file or directory");
}

}  // namespace
}  // namespace vc::engine
