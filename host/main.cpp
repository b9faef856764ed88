// main.cpp — mcp-virtual-computer: the product, serving its own tools and nothing else.
#include "launcher/run_host.h"

int main(int argc, char** argv) {
  return vc::launcher::run_mcp_virtual_computer(argc, argv, /*extension=*/nullptr);
}
