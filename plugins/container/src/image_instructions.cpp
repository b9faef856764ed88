// image_instructions.cpp — the command tool's description of a Debian computer.
#include "image_instructions.h"

namespace vc::container {
namespace {

std::string_view basename_of(std::string_view path) {
  auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::optional<std::string> tool_instructions_for(std::string_view image, std::string_view shell,
                                                 std::int64_t default_timeout_s) {
  if (image != kDebianImage && image != kDesktopImage) return std::nullopt;
  std::string text;
  text += "Execute a shell command in one persistent Debian Docker computer. Commands run in ";
  text += basename_of(shell);
  text += ". Each call is independent: shell variables and the working directory do not "
          "persist between calls, but the filesystem does. Use working_directory or chain "
          "commands with && to work in another directory.\n\n";
  text += "Use stdin to write files without shell escaping (for example command=\"cat > "
          "file.txt\" with the file's content as stdin). Commands time out after ";
  text += std::to_string(default_timeout_s);
  text += " seconds by default (override with the timeout parameter for longer tasks).";
  return text;
}

}  // namespace vc::container
