// file_path.h — where a file tool's path points (docs/compatibility.md, "Paths").
//
// Trimmed; empty, whitespace-only and NUL-containing paths are refused; an absolute path is
// POSIX-normalised, a relative one is joined to the workspace first. ".." may leave the
// workspace: the workspace is a convenience, not a security boundary (the whole computer is
// the agent's).
#pragma once

#include <string>

#include "common/failure.h"

namespace vc::tools {

Expected<std::string> resolve_file_path(const std::string& path, const std::string& workspace);

// POSIX normalisation as Python's posixpath.normpath: "." and empty segments dropped, ".."
// removes the previous segment (never above "/"); "//x" keeps its two slashes.
std::string normalise_posix_path(const std::string& path);

}  // namespace vc::tools
