// stdio_transport.cpp — see stdio_transport.h.
#include "transport/stdio_transport.h"

#include <utility>

#include <spdlog/spdlog.h>

namespace vc::transport {
namespace {

std::string size_text(size_t bytes) {
  constexpr size_t kMiB = 1024 * 1024;
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Expected<std::unique_ptr<StdioTransport>> StdioTransport::open(uv_loop_t* loop, Handlers handlers,
                                                               StdioTransportOptions options) {
  std::unique_ptr<StdioTransport> transport(
      new StdioTransport(std::move(handlers), options.max_line_bytes));
  StdioTransport* self = transport.get();
  auto reader = InputReader::open(
      loop, options.input_fd,
      {[self](std::string_view bytes) { self->on_bytes(bytes); }, [self] { self->on_end(); }});
  if (!reader) return reader.error();
  auto writer = OutputWriter::open(loop, options.output_fd);
  if (!writer) {
    // The reader's handle is live; it must be closed before it can go.
    auto* orphan = std::move(reader).value().release();
    orphan->close([orphan] { delete orphan; });
    return writer.error();
  }
  transport->reader_ = std::move(reader).value();
  transport->writer_ = std::move(writer).value();
  return transport;
}

StdioTransport::StdioTransport(Handlers handlers, size_t max_line_bytes)
    : handlers_(std::move(handlers)),
      max_line_bytes_(max_line_bytes),
      splitter_(
          max_line_bytes,
          [this](std::string_view line) {
            if (reading_ && handlers_.on_line) handlers_.on_line(line);
          },
          [this] {
            if (!reading_ || !handlers_.on_unreadable_line) return;
            handlers_.on_unreadable_line("message larger than " + size_text(max_line_bytes_) +
                                         " (the stdio line limit); it was discarded");
          }) {}

StdioTransport::~StdioTransport() {
  if (reader_ || writer_) spdlog::critical("stdio transport destroyed without close()");
  // Leak rather than free handles the loop still references.
  (void)reader_.release();
  (void)writer_.release();
}

void StdioTransport::start_reading() {
  if (reading_ || !reader_) return;
  reading_ = true;
  reader_->start();
}

void StdioTransport::stop_reading() {
  reading_ = false;
  if (reader_) reader_->stop();
}

void StdioTransport::send_line(std::string line) {
  if (!writer_) return;
  line += '\n';
  writer_->write(std::move(line));
}

size_t StdioTransport::queued_output_bytes() const { return writer_ ? writer_->queued_bytes() : 0; }

void StdioTransport::close(std::function<void()> done) {
  stop_reading();
  close_done_ = std::move(done);
  open_parts_ = 2;
  reader_->close([this] { part_closed(); });
  writer_->close([this] { part_closed(); });
}

void StdioTransport::part_closed() {
  if (--open_parts_ > 0) return;
  reader_.reset();
  writer_.reset();
  if (auto done = std::move(close_done_)) done();
}

void StdioTransport::on_bytes(std::string_view bytes) {
  if (reading_) splitter_.feed(bytes);
}

void StdioTransport::on_end() {
  if (!reading_) return;
  splitter_.finish();
  if (!reading_) return;  // a handler of the last line began shutdown
  reading_ = false;
  if (handlers_.on_end_of_input) handlers_.on_end_of_input();
}

}  // namespace vc::transport
