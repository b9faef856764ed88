// file_tools.h — read_file, write_file, edit_file and list_directory (docs/compatibility.md,
// "File tools"): text files on the computer, through the same exec path as terminal_execute,
// on any backend.
//
// Contents cross as bytes (stdin in, base64 out), never through shell quoting. Text is UTF-8,
// at most 1 MiB. Writes are atomic (a temporary file in the same directory, then a rename)
// and keep an existing file's mode. edit_file checks, when it saves, that the file still has
// the SHA-256 it read, so an edit made meanwhile is not overwritten.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "computers/computer_registry.h"
#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// What the file tools apply: the computer's settings (the registry's) and the text limit.
struct FileToolSettings {
  computers::ComputerSettings computer;
  uint64_t text_limit = 1048576;  // the original's file_text_limit, not configurable
};

// The four tools in tools/list order (the original's: list_directory first). `registry` must outlive them.
std::vector<std::unique_ptr<mcp::Tool>> make_file_tools(FileToolSettings settings,
                                                        computers::ComputerRegistry& registry);

std::vector<std::unique_ptr<mcp::Tool>> make_file_tools(const CatalogContext& context);

}  // namespace vc::tools
