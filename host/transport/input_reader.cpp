// input_reader.cpp — see input_reader.h.
#include "transport/input_reader.h"

#include <array>
#include <utility>

#include <spdlog/spdlog.h>

#include "transport/stream_handle.h"

namespace vc::transport {
namespace {

constexpr size_t kReadChunkBytes = 64 * 1024;

// Pipes, sockets and terminals: uv_read_start on a stream handle.
class StreamInputReader final : public InputReader {
 public:
  StreamInputReader(std::unique_ptr<uv_any_handle> handle, Handlers handlers)
      : handle_(std::move(handle)), handlers_(std::move(handlers)) {
    handle_->handle.data = this;
  }

  ~StreamInputReader() override {
    // Without close() the handle would be freed while the loop still knows it.
    if (handle_) spdlog::critical("stdin reader destroyed without close()");
  }

  void start() override {
    const int error = uv_read_start(stream(), &StreamInputReader::allocate, &StreamInputReader::on_read);
    if (error != 0) {
      spdlog::error("cannot read stdin: {}", uv_strerror(error));
      end();
    }
  }

  void stop() override {
    stopped_ = true;
    if (handle_) uv_read_stop(stream());
  }

  void close(std::function<void()> done) override {
    stop();
    close_done_ = std::move(done);
    uv_close(&handle_->handle, &StreamInputReader::on_closed);
  }

 private:
  uv_stream_t* stream() { return &handle_->stream; }

  void end() {
    if (stopped_) return;
    stop();
    if (handlers_.on_end) handlers_.on_end();
  }

  static void allocate(uv_handle_t* handle, size_t, uv_buf_t* buffer) {
    auto* self = static_cast<StreamInputReader*>(handle->data);
    *buffer = uv_buf_init(self->buffer_.data(), static_cast<unsigned>(self->buffer_.size()));
  }

  static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buffer) {
    auto* self = static_cast<StreamInputReader*>(stream->data);
    if (nread > 0) {
      if (!self->stopped_) self->handlers_.on_bytes({buffer->base, static_cast<size_t>(nread)});
      return;
    }
    if (nread == 0) return;  // EAGAIN: nothing this time
    if (nread != UV_EOF) spdlog::warn("reading stdin failed: {}", uv_strerror(static_cast<int>(nread)));
    self->end();
  }

  static void on_closed(uv_handle_t* handle) {
    auto* self = static_cast<StreamInputReader*>(handle->data);
    self->handle_.reset();
    if (auto done = std::move(self->close_done_)) done();
  }

  std::unique_ptr<uv_any_handle> handle_;
  Handlers handlers_;
  std::array<char, kReadChunkBytes> buffer_{};
  bool stopped_ = false;
  std::function<void()> close_done_;
};

// Regular files and character devices: one uv_fs_read at a time from the current position.
class FileInputReader final : public InputReader {
 public:
  FileInputReader(uv_loop_t* loop, int fd, Handlers handlers)
      : loop_(loop), fd_(fd), handlers_(std::move(handlers)) {
    request_.data = this;
  }

  void start() override { read_next(); }

  void stop() override { stopped_ = true; }

  void close(std::function<void()> done) override {
    stop();
    if (reading_) {
      close_done_ = std::move(done);  // the read in flight still refers to request_
      return;
    }
    if (done) done();
  }

 private:
  void read_next() {
    if (stopped_) return;
    const uv_buf_t buffer = uv_buf_init(buffer_.data(), static_cast<unsigned>(buffer_.size()));
    const int error = uv_fs_read(loop_, &request_, fd_, &buffer, 1, -1, &FileInputReader::on_read);
    if (error != 0) {
      uv_fs_req_cleanup(&request_);
      spdlog::warn("reading stdin failed: {}", uv_strerror(error));
      end();
      return;
    }
    reading_ = true;
  }

  void end() {
    if (stopped_) return;
    stopped_ = true;
    if (handlers_.on_end) handlers_.on_end();
  }

  static void on_read(uv_fs_t* request) {
    auto* self = static_cast<FileInputReader*>(request->data);
    const ssize_t result = request->result;
    uv_fs_req_cleanup(request);
    self->reading_ = false;
    if (self->close_done_) {
      std::exchange(self->close_done_, nullptr)();
      return;
    }
    if (self->stopped_) return;
    if (result > 0) {
      self->handlers_.on_bytes({self->buffer_.data(), static_cast<size_t>(result)});
      self->read_next();
      return;
    }
    if (result < 0) spdlog::warn("reading stdin failed: {}", uv_strerror(static_cast<int>(result)));
    self->end();
  }

  uv_loop_t* loop_;
  int fd_;
  Handlers handlers_;
  uv_fs_t request_{};
  std::array<char, kReadChunkBytes> buffer_{};
  bool reading_ = false;
  bool stopped_ = false;
  std::function<void()> close_done_;
};

}  // namespace

Expected<std::unique_ptr<InputReader>> InputReader::open(uv_loop_t* loop, int fd, Handlers handlers) {
  const uv_handle_type type = uv_guess_handle(fd);
  if (type == UV_FILE) {
    return std::unique_ptr<InputReader>(std::make_unique<FileInputReader>(loop, fd, std::move(handlers)));
  }
  if (type != UV_NAMED_PIPE && type != UV_TCP && type != UV_TTY) {
    return Failure{-1, "stdin (file descriptor " + std::to_string(fd) +
                           ") is neither a pipe, a socket, a terminal nor a file"};
  }
  auto handle = open_stream_handle(loop, fd, type, /*readable=*/true);
  if (!handle) return handle.error();
  return std::unique_ptr<InputReader>(
      std::make_unique<StreamInputReader>(std::move(handle).value(), std::move(handlers)));
}

}  // namespace vc::transport
