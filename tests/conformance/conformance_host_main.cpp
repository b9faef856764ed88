// conformance_host_main.cpp — mcp-virtual-computer-conformance: the product's own process
// (same command line, same servers, same plugin search) plus the tools, resources and prompts
// the official MCP conformance suite calls. A test binary: built with the tests, never
// installed.
#include <memory>
#include <utility>
#include <vector>

#include "fixtures/conformance_fixtures.h"
#include "launcher/run_host.h"

namespace {

// [loop-thread] The extension's add_parts: the fixture tools after the product's own, and
// the fixture catalog as the innermost layer of resources and prompts.
std::unique_ptr<vc::mcp::ContentCatalog> add_fixtures(
    uv_loop_t* loop, std::vector<std::unique_ptr<vc::mcp::Tool>>& tools) {
  for (auto& tool : vc::conformance::make_conformance_fixture_tools(loop)) {
    tools.push_back(std::move(tool));
  }
  return vc::conformance::make_conformance_fixture_catalog();
}

}  // namespace

int main(int argc, char** argv) {
  const vc::server::ServerExtension fixtures{
      "mcp-virtual-computer-conformance: serving the MCP conformance suite's test tools, "
      "resources and prompts as well; a test host, not the product",
      add_fixtures};
  return vc::launcher::run_mcp_virtual_computer(argc, argv, &fixtures);
}
