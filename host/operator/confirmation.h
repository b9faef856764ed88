// confirmation.h — asking the operator before something cannot be undone.
#pragma once

#include <iosfwd>
#include <string>

namespace vc::operator_cli {

// Writes `question` and " [y/N] " to `prompt_out`, reads one line from `answers`, and says
// whether it was "y" or "yes" (any case, surrounding blanks ignored). End of input is "no".
bool confirm(const std::string& question, std::istream& answers, std::ostream& prompt_out);

}  // namespace vc::operator_cli
