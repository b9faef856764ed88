// logging_setup.h — the server's own log: stderr (or a file), never stdout.
//
// stdout carries the MCP protocol and nothing else, and spdlog's out-of-the-box default logger
// writes to stdout. So the first thing main does is install_stderr_logging(); once the command
// line is parsed, configure_logging() applies --log-level and --log-file. Loggers made from
// the default logger afterwards (plugins get "backend.<id>") share its sinks and level.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/failure.h"

namespace vc::server {

// Default logger "mcp-virtual-computer" on stderr at info.
void install_stderr_logging();

// `level` is one of trace, debug, info, warn, error, critical, off.
// Failure: the log file cannot be opened.
std::optional<Failure> configure_logging(const std::string& level,
                                         const std::optional<std::filesystem::path>& log_file);

}  // namespace vc::server
