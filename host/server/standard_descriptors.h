// standard_descriptors.h — making sure descriptors 0, 1 and 2 exist.
//
// A server started with stdin, stdout or stderr closed would hand that number to the next
// descriptor it opens (an event loop, a plugin's socket), and then read protocol from it or
// write logs into it. Opening /dev/null on every missing one first keeps 0-2 meaning what
// they should: a closed stdin simply reads as end of input.
#pragma once

namespace vc::server {

// Call first thing in main, before anything opens a descriptor.
void open_missing_standard_descriptors();

}  // namespace vc::server
