// exec_output.cpp — the output limit and the host's backpressure, for every exec path.
#include <vc_agent_channel/exec_output.h>

#include <chrono>

namespace vc::agent_channel {
namespace {

// Retry delay when the host answers VC_E_BACKPRESSURE.
constexpr std::chrono::milliseconds kBackpressureRetry{5};
// Output the host has refused is held up to this much.
constexpr std::uint64_t kMaxHeldBytes = 64ull << 20;

}  // namespace

ExecOutput::ExecOutput(ChannelClock& clock, sdk::HostLog log, std::string what, Emit emit,
                       std::uint64_t limit, std::function<void(Stop)> on_stop)
    : clock_(clock), log_(log), what_(std::move(what)), emit_(std::move(emit)), limit_(limit),
      on_stop_(std::move(on_stop)) {}

ExecOutput::~ExecOutput() = default;

void ExecOutput::take(vc_stream stream, std::string_view bytes) {
  const std::uint64_t before = total_;
  total_ += bytes.size();
  if (stopped_ || closed_) return;
  if (limit_ != 0 && total_ > limit_) {
    // Deliver what fits under the limit, then stop the command.
    const std::uint64_t room = before < limit_ ? limit_ - before : 0;
    if (room > 0) deliver(stream, bytes.substr(0, static_cast<std::size_t>(room)));
    return stop(Stop::kOutputLimit);
  }
  deliver(stream, bytes);
}

void ExecOutput::deliver(vc_stream stream, std::string_view bytes) {
  if (bytes.empty() || closed_) return;
  if (held_.empty()) {
    const vc_status status = emit_(stream, bytes);
    if (status == VC_OK) return;
    if (status == VC_NOTE_TRUNCATED) return stop(Stop::kOutputLimit);
    if (status != VC_E_BACKPRESSURE) return stop(Stop::kHostGone);
  }
  // Keep the order: once something waits, everything after it waits too.
  held_.emplace_back(stream, std::string(bytes));
  held_bytes_ += bytes.size();
  if (held_bytes_ > kMaxHeldBytes) {
    log_.warn(what_ + ": the host stopped taking output; stopping the command");
    return stop(Stop::kOutputLimit);
  }
  retry_later();
}

void ExecOutput::retry_later() {
  if (!retry_timer_) retry_timer_ = clock_.make_timer();
  if (retry_timer_->active()) return;
  std::weak_ptr<ExecOutput> weak = weak_from_this();
  retry_timer_->start(kBackpressureRetry, [weak] {
    if (auto self = weak.lock()) self->flush();
  });
}

void ExecOutput::flush() {
  while (!held_.empty() && !closed_) {
    auto& [stream, bytes] = held_.front();
    const vc_status status = emit_(stream, bytes);
    if (status == VC_E_BACKPRESSURE) return retry_later();
    held_bytes_ -= bytes.size();
    held_.pop_front();
    if (status == VC_NOTE_TRUNCATED) stop(Stop::kOutputLimit);
    if (status != VC_OK && status != VC_NOTE_TRUNCATED) stop(Stop::kHostGone);
  }
  if (held_.empty() && on_delivered_) {
    auto callback = std::move(on_delivered_);
    on_delivered_ = nullptr;
    callback();
  }
}

void ExecOutput::when_delivered(std::function<void()> callback) {
  if (held_.empty() || closed_) return callback();
  on_delivered_ = std::move(callback);
}

void ExecOutput::close() {
  closed_ = true;
  held_.clear();
  held_bytes_ = 0;
  on_delivered_ = nullptr;
  if (retry_timer_) retry_timer_->stop();
}

void ExecOutput::stop(Stop why) {
  if (stopped_) return;
  stopped_ = true;
  if (on_stop_) on_stop_(why);
}

}  // namespace vc::agent_channel
