// file_scripts.h — the shell scripts the file tools run on the computer, and their exit codes.
//
// Each runs as `/bin/sh -c <script> <tool> <arguments...>`: paths and flags arrive as
// positional parameters and file contents as stdin or base64 output, never through shell
// quoting. They need a POSIX shell and coreutils (base64, find -printf, mktemp, chmod
// --reference, sha256sum), which every Debian-based image has.
#pragma once

namespace vc::tools {

inline constexpr int kScriptMissing = 66;       // the path does not exist
inline constexpr int kScriptWrongKind = 65;     // not a regular file / not a directory
inline constexpr int kScriptTooLarge = 67;      // larger than the text limit
inline constexpr int kScriptNoParent = 68;      // the parent directory does not exist
inline constexpr int kScriptChanged = 73;       // the file changed since it was read

// $1 path, $2 limit in bytes. Prints the size on one line, then the content as base64 on one
// line. Exit 67 prints only the size.
extern const char* const kReadFileScript;

// $1 path, $2 "1" to create missing parents, $3 expected SHA-256 of the current content or
// "" (no check). The content is stdin. Writes a temporary file next to the target, gives it
// the target's mode and owner (a new file: the umask's default mode and the owner of its
// folder, as are folders the script creates), and renames it over the target. So a file the
// tools write into the desktop user's /workspace stays that user's to edit and save in a
// desktop application; where chown is not allowed (the tools do not run as root) the owner is
// the writer, as before.
extern const char* const kWriteFileScript;

// $1 directory. Prints base64 of NUL-separated name, kind (find's %y) and size triples.
extern const char* const kListDirectoryScript;

}  // namespace vc::tools
