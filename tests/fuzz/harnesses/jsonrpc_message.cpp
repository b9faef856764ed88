// jsonrpc_message — one line a client sends on stdio (or one HTTP body): parsed, classified,
// its arguments checked against terminal_execute's real input schema (the tool with the most
// constraints), and printed back the way tool payloads are. None of it may throw, crash or
// recurse without bound, whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mcp/jsonrpc.h"
#include "mcp/python_style_json.h"
#include "mcp/schema_validator.h"
#include "tools/terminal_execute_definition.h"

namespace {

const vc::Json& terminal_schema() {
  static const vc::Json schema =
      vc::tools::terminal_execute_definition("Run a command.").input_schema;
  return schema;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  auto parsed = vc::mcp::jsonrpc::parse(line);
  if (!parsed.ok()) return 0;
  const vc::Json& message = parsed.value();
  (void)vc::mcp::jsonrpc::classify(message);
  if (message.is_object()) {
    if (auto id = message.find("id"); id != message.end()) (void)vc::mcp::jsonrpc::is_valid_id(*id);
  }
  // The arguments of a tools/call, or the whole document when it is not one.
  vc::Json arguments = message;
  if (message.is_object()) {
    auto params = message.find("params");
    if (params != message.end() && params->is_object() && params->contains("arguments")) {
      arguments = (*params)["arguments"];
    }
  }
  if (!vc::mcp::find_schema_violation(terminal_schema(), arguments)) {
    vc::mcp::normalize_integers(terminal_schema(), arguments);
  }
  (void)vc::mcp::dump_python_style(message);
  return 0;
}
