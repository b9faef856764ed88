// misbehaviour_log.cpp — see misbehaviour_log.h.
#include "operator/misbehaviour_log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

namespace vc::operator_cli {
namespace {

// The marker OpChannel::report_misbehaviour puts in front of every violation it logs.
constexpr const char* kMarker = "plugin misbehaving: ";

class CaptureSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit CaptureSink(std::shared_ptr<MisbehaviourLog> log) : log_(std::move(log)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    log_->offer(std::string(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  std::shared_ptr<MisbehaviourLog> log_;
};

}  // namespace

std::shared_ptr<MisbehaviourLog> MisbehaviourLog::install() {
  auto log = std::make_shared<MisbehaviourLog>();
  auto sink = std::make_shared<CaptureSink>(log);
  sink->set_level(spdlog::level::warn);
  auto logger = spdlog::default_logger();
  // The violations are warnings: the logger must let them through even when its own output
  // is quieter, so the quieter level moves onto the sinks it already has.
  if (logger->level() > spdlog::level::warn) {
    for (auto& existing : logger->sinks()) existing->set_level(logger->level());
    logger->set_level(spdlog::level::warn);
  }
  logger->sinks().push_back(std::move(sink));
  return log;
}

size_t MisbehaviourLog::size() const {
  std::lock_guard lock(mutex_);
  return lines_.size();
}

std::vector<std::string> MisbehaviourLog::since(size_t first) const {
  std::lock_guard lock(mutex_);
  if (first >= lines_.size()) return {};
  return {lines_.begin() + static_cast<std::ptrdiff_t>(first), lines_.end()};
}

void MisbehaviourLog::offer(const std::string& message) {
  const size_t at = message.find(kMarker);
  if (at == std::string::npos) return;
  std::lock_guard lock(mutex_);
  lines_.push_back(message.substr(at + std::string_view(kMarker).size()));
}

}  // namespace vc::operator_cli
