// file_path.cpp — see file_path.h.
#include "tools/file_path.h"

#include <vector>

namespace vc::tools {

std::string normalise_posix_path(const std::string& path) {
  if (path.empty()) return ".";
  size_t leading = 0;
  while (leading < path.size() && path[leading] == '/') ++leading;
  // posixpath keeps exactly two leading slashes, and collapses three or more to one.
  const std::string prefix = leading == 0 ? "" : leading == 2 ? "//" : "/";
  std::vector<std::string> parts;
  size_t start = leading;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part.empty() || part == ".") {
      // skip
    } else if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (prefix.empty()) {
        parts.push_back(part);  // a relative path may start with ".."
      }
    } else {
      parts.push_back(part);
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string joined = prefix;
  for (size_t i = 0; i < parts.size(); ++i) joined += (i == 0 ? "" : "/") + parts[i];
  return joined.empty() ? "." : joined;
}

Expected<std::string> resolve_file_path(const std::string& path, const std::string& workspace) {
  if (path.find('\0') != std::string::npos) return Failure{-1, "path must not contain a NUL byte"};
  const auto first = path.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string::npos) return Failure{-1, "path must not be empty"};
  const auto last = path.find_last_not_of(" \t\r\n\v\f");
  const std::string trimmed = path.substr(first, last - first + 1);
  if (trimmed.front() == '/') return normalise_posix_path(trimmed);
  return normalise_posix_path(workspace + "/" + trimmed);
}

}  // namespace vc::tools
