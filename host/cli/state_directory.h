// state_directory.h — where the server and its plugins keep state between runs.
#pragma once

#include <filesystem>
#include <string>

namespace vc::cli {

// $XDG_STATE_HOME/mcp-virtual-computer when XDG_STATE_HOME is an absolute path (XDG Base
// Directory spec), else ~/.local/state/mcp-virtual-computer.
std::filesystem::path default_state_dir();

// <state_dir>/<plugin id>: each plugin gets a directory of its own.
std::filesystem::path plugin_state_dir(const std::filesystem::path& state_dir,
                                       const std::string& plugin_id);

}  // namespace vc::cli
