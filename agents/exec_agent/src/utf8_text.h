// utf8_text.h — process output as text: bytes become valid UTF-8, cut at character boundaries.
//
// A process writes bytes; the answers carry JSON strings, which must be valid UTF-8. So bytes
// that are not UTF-8 become U+FFFD (one per maximal invalid piece, as the Unicode standard
// recommends), and a character cut by the end of what is returned is held back for the next
// read rather than broken in two. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vc::exec_agent {

// Appends `bytes` to `text`, each invalid piece replaced by U+FFFD.
void append_as_valid_utf8(std::string& text, std::string_view bytes);

// How many bytes at the end of `bytes` are the start of a character that is not complete yet
// (0 to 3): a lead byte followed by fewer continuation bytes than it announces.
std::size_t incomplete_utf8_tail(std::string_view bytes);

}  // namespace vc::exec_agent
