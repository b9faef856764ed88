// exec_connection.cpp — the exec hijack: HTTP head, then raw frames and stdin.
#include "exec_connection.h"

#include "json_response.h"

namespace vc::engine::detail {
namespace {

bool starts_stream(int status) {
  return status == 101 || status == 200;
}

}  // namespace

ExecConnection::ExecConnection(EngineLoop& loop, EngineAddress address, ExecStartOptions options,
                               std::string request_bytes, ExecStreamCallbacks callbacks)
    : ConnectionOperation(loop, std::move(address), options.deadlines),
      request_bytes_(std::move(request_bytes)),
      callbacks_(std::move(callbacks)),
      parser_(
          ResponseParser::Events{[this](const HttpResponse& head) { return on_head(head); },
                                 [this](std::string_view piece) { refusal_.body.append(piece); }}),
      demuxer_(!options.tty) {}

void ExecConnection::on_connected() {
  socket().write(std::move(request_bytes_));
}

ResponseParser::BodyMode ExecConnection::on_head(const HttpResponse& head) {
  refusal_.status = head.status;
  refusal_.reason = head.reason;
  refusal_.headers = head.headers;
  // 101: the upgrade we asked for. 200: an engine that hijacks without upgrading; the stream
  // then runs until close, with neither length nor chunking, so it is raw too. Either way the
  // HTTP parser must stop at the end of the head.
  return starts_stream(head.status) ? ResponseParser::BodyMode::kRawAfter
                                    : ResponseParser::BodyMode::kParse;
}

void ExecConnection::on_bytes(std::string_view bytes) {
  if (raw_) {
    feed_raw(bytes);
    return;
  }
  switch (parser_.feed(bytes)) {
    case ResponseParser::Outcome::kNeedMore:
      return;
    case ResponseParser::Outcome::kRaw: {
      // The head may share a read with the first output bytes: keep them.
      const std::string_view leftover = bytes.substr(parser_.raw_offset());
      enter_raw_mode();
      if (!finished()) feed_raw(leftover);
      return;
    }
    case ResponseParser::Outcome::kComplete:
      fail(http_status_error(refusal_));
      return;
    case ResponseParser::Outcome::kError: {
      fail(make_error(EngineErrorKind::kProtocol, parser_.error_text(), refusal_.status));
      return;
    }
  }
}

void ExecConnection::enter_raw_mode() {
  raw_ = true;
  for (std::string& bytes : pending_stdin_) socket().write(std::move(bytes));
  pending_stdin_.clear();
  if (stdin_closed_) socket().shutdown_write();
  if (callbacks_.on_started) callbacks_.on_started(refusal_.status);
}

void ExecConnection::feed_raw(std::string_view bytes) {
  const bool valid = demuxer_.feed(bytes, [this](StreamKind stream, std::string_view payload) {
    if (finished()) return;  // the caller aborted inside an earlier frame of this read
    output_bytes_.fetch_add(payload.size(), std::memory_order_relaxed);
    if (callbacks_.on_output) callbacks_.on_output(stream, payload);
  });
  if (!valid && !finished()) {
    fail(make_error(
        EngineErrorKind::kProtocol,
        "the exec output is not a multiplexed stream; was the exec created with Tty:true? "
        "(start it with tty=true then)"));
  }
}

void ExecConnection::on_end_of_stream() {
  if (raw_) {
    if (!demuxer_.at_frame_boundary()) {
      fail(make_error(EngineErrorKind::kProtocol,
                      "the engine closed the exec stream in the middle of an output frame"));
      return;
    }
    complete_ok();
    return;
  }
  if (parser_.finish() == ResponseParser::Outcome::kComplete) {
    fail(http_status_error(refusal_));
    return;
  }
  EngineError error = make_error(EngineErrorKind::kProtocol, parser_.error_text(), refusal_.status);
  if (parser_.cut_short()) error.kind = EngineErrorKind::kTransport;
  fail(std::move(error));
}

void ExecConnection::on_write_failed(int uv_status) {
  if (!raw_) {
    fail(error_from_uv(EngineErrorKind::kTransport, uv_status));
    return;
  }
  // Stdin broke (EPIPE: the process exited without reading it all). Output may still be on
  // its way, so the read side decides how the stream ends; further stdin is dropped.
  stdin_closed_ = true;
}

void ExecConnection::write_stdin(std::string bytes) {
  if (finished() || stdin_closed_ || bytes.empty()) return;
  if (raw_) {
    socket().write(std::move(bytes));
  } else {
    pending_stdin_.push_back(std::move(bytes));
  }
}

void ExecConnection::close_stdin() {
  if (finished() || stdin_closed_) return;
  stdin_closed_ = true;
  if (raw_) socket().shutdown_write();
}

void ExecConnection::complete_ok() {
  auto guard = shared_from_this();
  if (!finish()) return;
  auto on_end = std::move(callbacks_.on_end);
  callbacks_ = {};  // the callbacks may own the ExecStream that owns us: break the cycle
  on_end(Result<void>());
}

void ExecConnection::deliver_failure(EngineError error) {
  auto on_end = std::move(callbacks_.on_end);
  callbacks_ = {};
  pending_stdin_.clear();
  if (on_end) on_end(std::move(error));
}

// --- ExecStream: the caller's handle ------------------------------------------------------------

}  // namespace vc::engine::detail

namespace vc::engine {

ExecStream::ExecStream(std::shared_ptr<detail::ExecConnection> connection)
    : connection_(std::move(connection)) {}

ExecStream::~ExecStream() = default;

void ExecStream::write_stdin(std::string bytes) {
  connection_->loop().post([connection = connection_, bytes = std::move(bytes)]() mutable {
    connection->write_stdin(std::move(bytes));
  });
}

void ExecStream::close_stdin() {
  connection_->loop().post([connection = connection_] { connection->close_stdin(); });
}

void ExecStream::abort() {
  connection_->loop().post([connection = connection_] { connection->cancel(); });
}

std::uint64_t ExecStream::output_bytes() const {
  return connection_->output_bytes();
}

}  // namespace vc::engine
