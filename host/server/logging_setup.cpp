// logging_setup.cpp — see logging_setup.h.
#include "server/logging_setup.h"

#include <memory>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace vc::server {
namespace {

constexpr const char* kLoggerName = "mcp-virtual-computer";

void install(std::shared_ptr<spdlog::logger> logger, spdlog::level::level_enum level) {
  logger->set_level(level);
  // Flush every line: the process may end in _exit() (the shutdown watchdog), and a log that
  // stops short of the reason is useless.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace

void install_stderr_logging() {
  install(spdlog::stderr_color_mt(kLoggerName), spdlog::level::info);
}

std::optional<Failure> configure_logging(const std::string& level,
                                         const std::optional<std::filesystem::path>& log_file) {
  const auto parsed_level = spdlog::level::from_str(level);
  std::shared_ptr<spdlog::logger> logger;
  if (log_file) {
    try {
      auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file->string());
      logger = std::make_shared<spdlog::logger>(kLoggerName, std::move(sink));
    } catch (const spdlog::spdlog_ex& error) {
      return Failure{-1, "cannot open the log file " + log_file->string() + ": " + error.what()};
    }
  } else {
    logger = std::make_shared<spdlog::logger>(
        kLoggerName, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  }
  spdlog::drop(kLoggerName);
  const auto sinks = logger->sinks();
  install(std::move(logger), parsed_level);
  // Loggers made before this point (while the plugin was loaded) follow the new settings too.
  spdlog::apply_all([&](const std::shared_ptr<spdlog::logger>& existing) {
    existing->sinks() = sinks;
    existing->set_level(parsed_level);
    existing->flush_on(spdlog::level::trace);
  });
  return std::nullopt;
}

}  // namespace vc::server
