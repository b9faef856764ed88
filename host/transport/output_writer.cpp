// output_writer.cpp — see output_writer.h.
#include "transport/output_writer.h"

#include <deque>
#include <utility>

#include <spdlog/spdlog.h>

#include "transport/stream_handle.h"

namespace vc::transport {
namespace {

// Pipes, sockets and terminals: uv_write keeps the order and tries the write at once.
class StreamOutputWriter final : public OutputWriter {
 public:
  explicit StreamOutputWriter(std::unique_ptr<uv_any_handle> handle) : handle_(std::move(handle)) {
    handle_->handle.data = this;
  }

  ~StreamOutputWriter() override {
    if (handle_) spdlog::critical("stdout writer destroyed without close()");
  }

  void write(std::string bytes) override {
    if (broken_ || closing_ || bytes.empty()) return;
    auto request = std::make_unique<WriteRequest>();
    request->owner = this;
    request->bytes = std::move(bytes);
    request->request.data = request.get();
    const uv_buf_t buffer =
        uv_buf_init(request->bytes.data(), static_cast<unsigned>(request->bytes.size()));
    const int error = uv_write(&request->request, &handle_->stream, &buffer, 1,
                               &StreamOutputWriter::on_written);
    if (error != 0) {
      fail(error);
      return;
    }
    request.release();  // libuv holds it until on_written
    ++pending_;
  }

  size_t queued_bytes() const override {
    return handle_ ? uv_stream_get_write_queue_size(&handle_->stream) : 0;
  }

  void close(std::function<void()> done) override {
    closing_ = true;
    close_done_ = std::move(done);
    if (pending_ == 0) close_handle();
  }

 private:
  struct WriteRequest {
    uv_write_t request{};
    StreamOutputWriter* owner = nullptr;
    std::string bytes;
  };

  void fail(int error) {
    if (!broken_) {
      spdlog::warn("writing stdout failed ({}); further protocol output is dropped",
                   uv_strerror(error));
    }
    broken_ = true;
  }

  void close_handle() {
    uv_close(&handle_->handle, &StreamOutputWriter::on_closed);
  }

  static void on_written(uv_write_t* raw_request, int status) {
    std::unique_ptr<WriteRequest> request(static_cast<WriteRequest*>(raw_request->data));
    StreamOutputWriter* self = request->owner;
    --self->pending_;
    if (status < 0 && status != UV_ECANCELED) self->fail(status);
    if (self->closing_ && self->pending_ == 0) self->close_handle();
  }

  static void on_closed(uv_handle_t* handle) {
    auto* self = static_cast<StreamOutputWriter*>(handle->data);
    self->handle_.reset();
    if (auto done = std::move(self->close_done_)) done();
  }

  std::unique_ptr<uv_any_handle> handle_;
  size_t pending_ = 0;
  bool broken_ = false;
  bool closing_ = false;
  std::function<void()> close_done_;
};

// Regular files and character devices: one uv_fs_write at a time, in queue order.
class FileOutputWriter final : public OutputWriter {
 public:
  FileOutputWriter(uv_loop_t* loop, int fd) : loop_(loop), fd_(fd) { request_.data = this; }

  void write(std::string bytes) override {
    if (broken_ || closing_ || bytes.empty()) return;
    queued_bytes_ += bytes.size();
    queue_.push_back(std::move(bytes));
    if (!writing_) write_front();
  }

  size_t queued_bytes() const override { return queued_bytes_; }

  void close(std::function<void()> done) override {
    closing_ = true;
    if (writing_) {
      close_done_ = std::move(done);
      return;
    }
    if (done) done();
  }

 private:
  void write_front() {
    std::string& front = queue_.front();
    const uv_buf_t buffer = uv_buf_init(front.data() + written_of_front_,
                                        static_cast<unsigned>(front.size() - written_of_front_));
    const int error = uv_fs_write(loop_, &request_, fd_, &buffer, 1, -1, &FileOutputWriter::on_written);
    if (error != 0) {
      uv_fs_req_cleanup(&request_);
      fail(error);
      return;
    }
    writing_ = true;
  }

  void fail(int error) {
    spdlog::warn("writing stdout failed ({}); further protocol output is dropped",
                 uv_strerror(error));
    broken_ = true;
    queue_.clear();
    queued_bytes_ = 0;
  }

  static void on_written(uv_fs_t* request) {
    auto* self = static_cast<FileOutputWriter*>(request->data);
    const ssize_t result = request->result;
    uv_fs_req_cleanup(request);
    self->writing_ = false;
    if (result < 0) {
      self->fail(static_cast<int>(result));
    } else {
      self->advance(static_cast<size_t>(result));
    }
    if (!self->broken_ && !self->queue_.empty()) {
      self->write_front();
      return;
    }
    if (self->closing_) {
      if (auto done = std::exchange(self->close_done_, nullptr)) done();
    }
  }

  void advance(size_t written) {
    queued_bytes_ -= written;
    written_of_front_ += written;
    if (written_of_front_ == queue_.front().size()) {
      queue_.pop_front();
      written_of_front_ = 0;
    }
  }

  uv_loop_t* loop_;
  int fd_;
  uv_fs_t request_{};
  std::deque<std::string> queue_;
  size_t written_of_front_ = 0;
  size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool broken_ = false;
  bool closing_ = false;
  std::function<void()> close_done_;
};

}  // namespace

Expected<std::unique_ptr<OutputWriter>> OutputWriter::open(uv_loop_t* loop, int fd) {
  const uv_handle_type type = uv_guess_handle(fd);
  if (type == UV_FILE) {
    return std::unique_ptr<OutputWriter>(std::make_unique<FileOutputWriter>(loop, fd));
  }
  if (type != UV_NAMED_PIPE && type != UV_TCP && type != UV_TTY) {
    return Failure{-1, "stdout (file descriptor " + std::to_string(fd) +
                           ") is neither a pipe, a socket, a terminal nor a file"};
  }
  auto handle = open_stream_handle(loop, fd, type, /*readable=*/false);
  if (!handle) return handle.error();
  return std::unique_ptr<OutputWriter>(std::make_unique<StreamOutputWriter>(std::move(handle).value()));
}

}  // namespace vc::transport
