// computer_table.h — computers as the operator reads them: an aligned table.
#pragma once

#include <string>
#include <vector>

#include "computers/computer_types.h"

namespace vc::operator_cli {

// COMPUTER ID, STATE, NETWORK, SANDBOX, IMAGE, CREATED; one row per computer, columns padded
// to their widest cell, "No computers." when there are none. Ends with a newline.
std::string format_computer_table(const std::vector<computers::ComputerInfo>& computers);

}  // namespace vc::operator_cli
