// exec_connection.h — the hijacked POST /exec/{id}/start connection behind an ExecStream.
//
// Sends the start request with the upgrade headers; on 101 (or 200, a raw stream without the
// upgrade) switches from HTTP to raw bytes: output through the frame demuxer, stdin written
// as is, half-close on request. Any other status is the engine refusing the start: its JSON
// error body becomes the failure. Loop thread only, except construction, output_bytes() and
// complete_unstarted().
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "connection_operation.h"
#include "response_parser.h"
#include "vc_engine/exec_stream.h"

namespace vc::engine::detail {

class ExecConnection final : public ConnectionOperation {
 public:
  ExecConnection(EngineLoop& loop, EngineAddress address, ExecStartOptions options,
                 std::string request_bytes, ExecStreamCallbacks callbacks);

  void write_stdin(std::string bytes);
  void close_stdin();
  std::uint64_t output_bytes() const { return output_bytes_.load(std::memory_order_relaxed); }

 private:
  void on_connected() override;
  void on_bytes(std::string_view bytes) override;
  void on_end_of_stream() override;
  void deliver_failure(EngineError error) override;
  void on_write_failed(int uv_status) override;

  ResponseParser::BodyMode on_head(const HttpResponse& head);
  void enter_raw_mode();
  void feed_raw(std::string_view bytes);
  void complete_ok();

  std::string request_bytes_;
  ExecStreamCallbacks callbacks_;
  ResponseParser parser_;
  StreamDemuxer demuxer_;
  HttpResponse refusal_;  // the engine's answer when it refused the start
  std::vector<std::string> pending_stdin_;
  bool raw_ = false;
  bool stdin_closed_ = false;  // close_stdin() was called, or stdin broke
  std::atomic<std::uint64_t> output_bytes_{0};
};

}  // namespace vc::engine::detail
