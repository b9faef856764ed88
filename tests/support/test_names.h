// test_names.h — names that keep concurrent test processes (and leftovers of earlier runs)
// apart.
#pragma once

#include <string>

namespace vc::test {

// "<prefix>-<pid>-<n>" with n counting up within this process: a valid computer id (lowercase
// letters, digits, hyphens) for prefixes made of those.
std::string unique_name(const std::string& prefix);

}  // namespace vc::test
