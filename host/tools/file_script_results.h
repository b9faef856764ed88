// file_script_results.h — how the file tools read what their scripts (file_scripts.h) left: the
// exit code, a timeout or an output overflow, and the read script's size line and base64 or the
// listing script's base64 of NUL-separated name/kind/size triples. The computer is the agent's,
// so its answers are decoded as untrusted input: anything malformed is a Failure whose message
// is the tool's error text, never an exception.
#pragma once

#include <string>

#include "common/failure.h"
#include "common/json.h"
#include "computers/computer_types.h"
#include "tools/file_tools.h"

namespace vc::tools {

struct FileText {
  std::string bytes;  // valid UTF-8
  computers::ComputerInfo computer;
};

// kReadFileScript's run for `path`: the file's text, or why there is none.
Expected<FileText> decode_read_script(const Expected<computers::ExecResult>& ran,
                                      const std::string& path, const FileToolSettings& settings);

// kWriteFileScript's run for `path`: the computer it wrote on, or why it did not.
Expected<computers::ComputerInfo> decode_write_script(const Expected<computers::ExecResult>& ran,
                                                      const std::string& path,
                                                      const FileToolSettings& settings);

// kListDirectoryScript's run for `path`: the entries (name, path, kind, size_bytes),
// directories first, then by case-folded name.
Expected<Json> decode_list_script(const Expected<computers::ExecResult>& ran,
                                  const std::string& path, const FileToolSettings& settings);

}  // namespace vc::tools
