// computer_table.h — computers and their checkpoints as the operator reads them: aligned
// tables. [any-thread]
#pragma once

#include <string>
#include <vector>

#include "computers/checkpoint_types.h"
#include "computers/computer_types.h"

namespace vc::operator_cli {

// COMPUTER ID, STATE, NETWORK, SANDBOX, IMAGE, CREATED; one row per computer, columns padded
// to their widest cell, "No computers." when there are none. Ends with a newline.
std::string format_computer_table(const std::vector<computers::ComputerInfo>& computers);

// NAME, CREATED, SIZE (KiB, MiB, ...), CONTENTS ("files"); oldest first, as listed;
// "Computer '<id>' has no checkpoints." when there are none. Ends with a newline.
std::string format_checkpoint_table(const computers::CheckpointListing& listing);

}  // namespace vc::operator_cli
