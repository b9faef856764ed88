// confirmation.cpp — see confirmation.h.
#include "operator/confirmation.h"

#include <algorithm>
#include <cctype>
#include <istream>
#include <ostream>

#include "common/ascii_text.h"

namespace vc::operator_cli {

bool confirm(const std::string& question, std::istream& answers, std::ostream& prompt_out) {
  prompt_out << question << " [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(answers, answer)) {
    prompt_out << '\n';
    return false;
  }
  const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
  answer.erase(answer.begin(), std::find_if_not(answer.begin(), answer.end(), blank));
  answer.erase(std::find_if_not(answer.rbegin(), answer.rend(), blank).base(), answer.end());
  answer = ascii_lower(answer);
  return answer == "y" || answer == "yes";
}

}  // namespace vc::operator_cli
