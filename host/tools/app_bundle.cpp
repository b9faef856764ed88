// app_bundle.cpp — see app_bundle.h.
#include "tools/app_bundle.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include <vc-backend-1/vc_status.h>

namespace vc::tools {

namespace fs = std::filesystem;

fs::path default_app_file() {
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (error || executable.empty()) return {};
  return (executable.parent_path() / ".." / "share" / "mcp-virtual-computer" / "computer.html")
      .lexically_normal();
}

Expected<std::string> read_app_file(const fs::path& path) {
  const std::string hint =
      " The App is built with the server when node and npm are installed (see docs/app.md); "
      "--app-file names another copy.";
  if (path.empty()) {
    return Failure{VC_E_NOT_FOUND, "The MCP App's location is unknown (/proc/self/exe cannot be "
                                   "read)." + hint};
  }
  std::error_code error;
  const auto size = fs::file_size(path, error);
  if (error) {
    return Failure{VC_E_NOT_FOUND, "The MCP App is not installed: cannot read " + path.string() +
                                       ": " + error.message() + "." + hint};
  }
  if (size > kAppMaxBytes) {
    return Failure{VC_E_FAILED, "The MCP App file " + path.string() + " is " +
                                    std::to_string(size) + " bytes, larger than any App build (" +
                                    std::to_string(kAppMaxBytes) + " at most): not served."};
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    return Failure{VC_E_FAILED, "Cannot read the MCP App file " + path.string() + ": " +
                                    std::strerror(errno) + "."};
  }
  return bytes;
}

}  // namespace vc::tools
