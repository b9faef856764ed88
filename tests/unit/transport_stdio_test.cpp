// The stdio transport over real descriptors: pipes (as an MCP client gives us) and regular
// files (`< requests.jsonl > replies.jsonl`).
#include "transport/stdio_transport.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace vc::transport {
namespace {

using namespace std::chrono_literals;

class Loop {
 public:
  Loop() { uv_loop_init(&loop_); }
  ~Loop() {
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }
  uv_loop_t* get() { return &loop_; }
  // Runs the loop until `done()` or a generous deadline.
  template <class Pred>
  bool run_until(Pred done, std::chrono::milliseconds limit = 5000ms) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      uv_run(&loop_, UV_RUN_NOWAIT);
      usleep(1000);
    }
    return true;
  }

 private:
  uv_loop_t loop_{};
};

struct Received {
  std::vector<std::string> lines;
  std::vector<std::string> unreadable;
  bool ended = false;
};

StdioTransport::Handlers collect(Received& received) {
  return {[&received](std::string_view line) { received.lines.emplace_back(line); },
          [&received](const std::string& reason) { received.unreadable.push_back(reason); },
          [&received] { received.ended = true; }};
}

std::string read_available(int fd) {
  std::string out;
  char buffer[4096];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) break;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

void close_transport(Loop& loop, std::unique_ptr<StdioTransport>& transport) {
  bool closed = false;
  transport->close([&] { closed = true; });
  ASSERT_TRUE(loop.run_until([&] { return closed; }));
  transport.reset();
}

TEST(StdioTransport, ReadsLinesAndWritesRepliesOverPipes) {
  Loop loop;
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  Received received;
  auto opened = StdioTransport::open(loop.get(), collect(received), {in[0], out[1], 1024});
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto transport = std::move(opened).value();
  transport->start_reading();

  const std::string input = "{\"a\":1}\r\n\n{\"b\":2}\n" + std::string(2000, 'x') + "\n{\"c\":3}";
  ASSERT_EQ(write(in[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ASSERT_TRUE(loop.run_until([&] { return received.lines.size() == 2; }));
  EXPECT_EQ(received.lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  ASSERT_EQ(received.unreadable.size(), 1u);
  EXPECT_NE(received.unreadable[0].find("1024 bytes"), std::string::npos);

  transport->send_line("first");
  transport->send_line("second");
  std::string written;
  ASSERT_TRUE(loop.run_until([&] {
    written += read_available(out[0]);
    return written.size() >= 13;
  }));
  EXPECT_EQ(written, "first\nsecond\n");

  close(in[1]);  // EOF: the unterminated last line still arrives, then the end
  ASSERT_TRUE(loop.run_until([&] { return received.ended; }));
  EXPECT_EQ(received.lines.back(), "{\"c\":3}");

  close_transport(loop, transport);
  close(out[0]);
}

TEST(StdioTransport, LargeOutputIsQueuedInOrderAndFlushedBeforeClose) {
  Loop loop;
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  Received received;
  auto transport = std::move(StdioTransport::open(loop.get(), collect(received), {in[0], out[1]})).value();
  transport->start_reading();

  // Far more than a pipe buffer: the writes must queue, never block the loop.
  std::string expected;
  for (int i = 0; i < 200; ++i) {
    std::string line = std::to_string(i) + ":" + std::string(4096, 'a' + i % 26);
    expected += line + "\n";
    transport->send_line(std::move(line));
  }
  EXPECT_GT(transport->queued_output_bytes(), 0u);

  bool closed = false;
  transport->close([&] { closed = true; });
  std::string written;
  ASSERT_TRUE(loop.run_until([&] {
    written += read_available(out[0]);
    return closed && written.size() == expected.size();
  }));
  EXPECT_EQ(written, expected);
  transport.reset();
  close(in[1]);
  close(out[0]);
}

TEST(StdioTransport, StopReadingDeliversNothingMore) {
  Loop loop;
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  Received received;
  auto transport = std::move(StdioTransport::open(loop.get(), collect(received), {in[0], out[1]})).value();
  transport->start_reading();
  transport->stop_reading();
  ASSERT_EQ(write(in[1], "x\n", 2), 2);
  close(in[1]);
  loop.run_until([] { return false; }, 50ms);
  EXPECT_TRUE(received.lines.empty());
  EXPECT_FALSE(received.ended);
  close_transport(loop, transport);
  close(out[0]);
}

class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    char name[] = "/tmp/vc-transport-XXXXXX";
    fd_ = mkstemp(name);
    path_ = name;
    EXPECT_EQ(write(fd_, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
    lseek(fd_, 0, SEEK_SET);
  }
  ~TempFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  std::string contents() const {
    std::string out;
    char buffer[4096];
    const int fd = open(path_.c_str(), O_RDONLY);
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
    close(fd);
    return out;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

TEST(StdioTransport, RegularFilesWorkForInputAndOutput) {
  Loop loop;
  std::string requests;
  for (int i = 0; i < 5000; ++i) requests += "{\"n\":" + std::to_string(i) + "}\n";
  TempFile input(requests);
  TempFile output("");
  Received received;
  auto opened = StdioTransport::open(loop.get(), collect(received), {input.fd(), output.fd()});
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto transport = std::move(opened).value();
  transport->start_reading();
  ASSERT_TRUE(loop.run_until([&] { return received.ended; }));
  ASSERT_EQ(received.lines.size(), 5000u);
  EXPECT_EQ(received.lines[4999], "{\"n\":4999}");

  transport->send_line("one");
  transport->send_line("two");
  close_transport(loop, transport);  // flushes before closing
  EXPECT_EQ(output.contents(), "one\ntwo\n");
}

TEST(StdioTransport, DevNullInputEndsAtOnce) {
  Loop loop;
  const int null_fd = open("/dev/null", O_RDWR);
  Received received;
  auto transport = std::move(StdioTransport::open(loop.get(), collect(received), {null_fd, null_fd})).value();
  transport->start_reading();
  ASSERT_TRUE(loop.run_until([&] { return received.ended; }));
  EXPECT_TRUE(received.lines.empty());
  close_transport(loop, transport);
  close(null_fd);
}

TEST(StdioTransport, ClosedDescriptorIsAnError) {
  Loop loop;
  Received received;
  auto opened = StdioTransport::open(loop.get(), collect(received), {987, 988});
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().message.find("987"), std::string::npos);
}

TEST(StdioTransport, WritesAfterTheReaderWentAwayAreDropped) {
  Loop loop;
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  signal(SIGPIPE, SIG_IGN);
  Received received;
  auto transport = std::move(StdioTransport::open(loop.get(), collect(received), {in[0], out[1]})).value();
  close(out[0]);
  transport->send_line("nobody listens");
  loop.run_until([] { return false; }, 50ms);
  transport->send_line("still nobody");
  close_transport(loop, transport);
  close(in[1]);
}

}  // namespace
}  // namespace vc::transport
