// message_text.h — outside text (names from a kubeconfig, a plugin's stderr, a path) made fit
// for an error sentence: bounded in length, valid UTF-8, no control characters.
//
// Error sentences end up in JSON (the MCP response), which needs valid UTF-8, and in front of a
// user, who needs them short: whatever the input, these return at most a bounded number of
// characters, escape what is not printable (\n, \x1b) or not UTF-8 (\xff), and cut with "…".
//
// Pure functions. Any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vc::kubernetes {

// `text` in double quotes, '"' and '\' escaped too: `"kind-dev"`.
std::string quote_for_message(std::string_view text, std::size_t max_chars = 64);

// `text` as is when it is short, printable UTF-8; else escaped and cut like the above, without
// quotes. For paths, which read better bare.
std::string printable_for_message(std::string_view text, std::size_t max_chars = 512);

}  // namespace vc::kubernetes
