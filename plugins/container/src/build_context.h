// build_context.h — a build context folder as the tar stream the engine's POST /build takes.
//
// Regular files and folders only (symlinks and special files are refused, so nothing outside
// the folder can end up in the image), names sorted, owner root, modification times zeroed:
// the same folder always gives the same bytes. Written with libarchive. Any thread; blocking
// file I/O on a few small files.
#pragma once

#include <string>
#include <string_view>

#include "expected.h"

namespace vc::container {

// The ustar archive of every file under `folder`, paths relative to it. Fails with
// VC_E_INVALID_ARGUMENT naming the offending path, or VC_E_FAILED when a file cannot be read.
Expected<std::string> tar_build_context(std::string_view folder);

}  // namespace vc::container
