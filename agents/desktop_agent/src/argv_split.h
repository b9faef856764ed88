// argv_split.h — argv from text: a shell-like split (no shell runs) and the Exec
// line of desktop entries (quoting rules and field codes of the Desktop Entry spec).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace vc::desktop_agent {

// Splits on blanks with '…', "…" (\ escapes $ ` " \ and newline) and \x outside quotes;
// nullopt for an unterminated quote.
std::optional<std::vector<std::string>> split_words(const std::string& text);

// An Exec value (already unescaped as a desktop entry string) as argv, field codes dropped
// (%f %F %u %U %d %D %n %N %i %c %k %v %m) and %% kept as %; nullopt when malformed.
std::optional<std::vector<std::string>> exec_arguments(const std::string& exec);

// Desktop entry string escapes: \s \n \t \r \\.
std::string unescape_entry_value(const std::string& value);

}  // namespace vc::desktop_agent
