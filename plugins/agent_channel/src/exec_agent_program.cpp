// exec_agent_program.cpp — the agent's version and its program's bytes.
#include <vc_agent_channel/exec_agent_program.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <vc_agent_channel/plugin_files.h>

#include "exec_agent_version.h"  // generated: kGeneratedExecAgentVersion

namespace vc::agent_channel {
namespace {

// No real agent is this small or this large; anything else is not the program.
constexpr std::uintmax_t kSmallestProgram = 1024;
constexpr std::uintmax_t kLargestProgram = 64u << 20;

OpFailure missing_program(const std::string& path, const std::string& why) {
  return OpFailure{VC_E_UNSUPPORTED,
                   "The exec agent program " + path + " " + why +
                       ". Reinstall the plugin with its exec-agent folder, pass "
                       "--exec-agent-binary FILE, or --exec-agent off.",
                   nlohmann::json{{"code", "exec_agent.no_program"}}};
}

}  // namespace

std::string_view exec_agent_version() { return kGeneratedExecAgentVersion; }

Expected<std::string> load_exec_agent_program(std::string_view configured) {
  namespace fs = std::filesystem;
  fs::path path;
  if (!configured.empty()) {
    path = fs::path(configured);
  } else {
    auto directory = plugin_directory();
    if (!directory) {
      return missing_program("beside this plugin", "cannot be found (the loader does not say "
                                                   "where the plugin was loaded from)");
    }
    path = *directory / kExecAgentFolderName / kExecAgentFileName;
  }
  std::error_code error;
  const auto size = fs::file_size(path, error);
  if (error) return missing_program(path.string(), "cannot be read (" + error.message() + ")");
  if (size < kSmallestProgram || size > kLargestProgram) {
    return missing_program(path.string(), "is " + std::to_string(size) +
                                              " bytes, which is not the agent program");
  }
  std::ifstream file(path, std::ios::binary);
  std::string program((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (program.size() != size || program.compare(0, 4, "\x7f" "ELF") != 0) {
    return missing_program(path.string(), "is not a Linux program");
  }
  return program;
}

}  // namespace vc::agent_channel
